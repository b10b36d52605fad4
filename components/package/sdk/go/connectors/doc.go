// Connectors and proxies of the platform on Kubernetes, with their registration.
package connectors
