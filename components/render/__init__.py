"""Pure render functions: validated arguments in, plain Kubernetes objects (dicts) out."""
