"""What is rendered: pure functions from validated arguments to plain Kubernetes objects (dicts),
one per kind, and the workload assembly both kinds share; it imports only the argument models."""
