"""The stack-wide settings of the program, read from the stack config once: where the objects
go (a folder, a cluster), which cluster referenced objects are read from, whether namespaces
are created; and the namespaces themselves when they are.

``kubernetes:kubeconfig`` and ``kubernetes:context`` (the Kubernetes provider's own keys) count
as ``connectors:kubeconfig`` and ``connectors:context``, so that objects and the referenced
objects come from one cluster; both set to different values is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.args.problems import InvalidArgumentsError, kind_of
from components.kube.object_reader import ClusterReader, NoCluster, ReferenceReader

POD_SECURITY = {f"pod-security.kubernetes.io/{mode}": "restricted" for mode in ("enforce", "warn", "audit")}
"""The labels of a namespace the program creates: the restricted Pod Security level."""


@dataclass(frozen=True)
class StackSettings:
    render_directory: str | None = None
    kubeconfig: str | None = None
    context: str | None = None
    create_namespaces: bool = False
    render_only: bool = False
    """Registrations are left out (the main command's ``render``)."""


def chosen(ours: Any, theirs: Any, key: str) -> Any:
    """``connectors:<key>`` or ``kubernetes:<key>``, whichever is set (both when equal); two
    different values are refused."""
    if ours and theirs and ours != theirs:
        raise InvalidArgumentsError(
            [f"connectors:{key} and kubernetes:{key} are both set, to different values: set one of them"],
            heading="invalid stack settings",
        )
    return ours or theirs


def _either(config: pulumi.Config, kubernetes: pulumi.Config, key: str) -> str | None:
    return chosen(config.get(key), kubernetes.get(key), key)  # type: ignore[no-any-return]


def cluster_of(settings: Mapping[str, Any]) -> tuple[Any, Any]:
    """The kubeconfig and context a stack file's ``config:`` block names, by the rule the
    program reads them with (for the main command's own reads, before the program runs)."""
    kubeconfig = chosen(settings.get("connectors:kubeconfig"), settings.get("kubernetes:kubeconfig"), "kubeconfig")
    return kubeconfig, chosen(settings.get("connectors:context"), settings.get("kubernetes:context"), "context")


def _flag(config: pulumi.Config, key: str) -> bool:
    text = config.get(key)
    if text is None:
        return False
    if text not in ("true", "false"):
        problem = f"connectors:{key}: must be true or false (got {kind_of(text)})"
        raise InvalidArgumentsError([problem], heading="invalid stack settings")
    return text == "true"


def stack_settings(config: pulumi.Config | None = None) -> StackSettings:
    config = config or pulumi.Config()
    kubernetes = pulumi.Config("kubernetes")
    return StackSettings(
        render_directory=config.get("renderDirectory") or None,
        kubeconfig=_either(config, kubernetes, "kubeconfig"),
        context=_either(config, kubernetes, "context"),
        create_namespaces=_flag(config, "createNamespaces"),
        render_only=_flag(config, "renderOnly"),
    )


def read_list_config(config: pulumi.Config, key: str) -> Any:
    """A list setting as written: a missing key is an empty list; anything else is parsed as
    the JSON Pulumi stores it in, or kept as the plain string it is."""
    text = config.get(key)
    if text is None:
        return []
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidArgumentsError([f"{key}: nested too deeply to be a list"]) from None
    except ValueError:
        return text


def kubernetes_provider(settings: StackSettings) -> k8s.Provider | None:
    """Render-to-directory when ``renderDirectory`` is set; else the configured or ambient cluster."""
    if settings.render_directory:
        return k8s.Provider("render", render_yaml_to_directory=settings.render_directory)
    if settings.kubeconfig or settings.context:
        return k8s.Provider("cluster", kubeconfig=settings.kubeconfig, context=settings.context)
    return None


def reference_reader(settings: StackSettings) -> ReferenceReader:
    if settings.render_directory:
        return NoCluster()
    return ClusterReader(settings.kubeconfig, settings.context)


def namespaces(names: list[str], opts: pulumi.ResourceOptions | None) -> dict[str, k8s.core.v1.Namespace]:
    """A Namespace for each of ``names`` under the restricted Pod Security level; kept when the
    stack is destroyed (a namespace's deletion deletes all it holds, the program's or not)."""
    keep = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(retain_on_delete=True))
    return {
        name: k8s.core.v1.Namespace(f"namespace/{name}", metadata={"name": name, "labels": POD_SECURITY}, opts=keep)
        for name in dict.fromkeys(names)
    }
