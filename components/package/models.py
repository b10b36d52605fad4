"""What the package adds to the argument models: its own inputs."""

from __future__ import annotations

from components.args.base import Model


class PackageOptions(Model):
    """Inputs of the package's components beyond a manifest's fields: what a Python caller
    passes as keyword arguments."""

    kubeconfig: str | None = None
    """The cluster to read referenced Secrets and ConfigMaps from (a kubeconfig's path or content;
    default: the ambient one), also the credentials of the registration's API-server proxy route."""
    kube_context: str | None = None
    """The kubeconfig context to use (default: its current context)."""
    read_references: bool = True
    """Read referenced Secrets and ConfigMaps for the config checksum. Set false when the
    Kubernetes provider renders to a directory (no cluster): each reference is then a warning."""
