"""The step both workload components share: their arguments validated and their references
resolved before anything is created (every problem named with the component's label), then
the rendered objects created as children, with the outputs both kinds have.

Each component passes its validated arguments and resolved references; the renderer is chosen
by the arguments' kind (``render.render_workload``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pulumi

from components.args.base import Model
from components.args.problems import InvalidArgumentsError
from components.args.workloads import WorkloadArgs
from components.kube.object_reader import ClusterReader, ReferenceReader
from components.kube.referenced_objects import ResolvedReferences
from components.machinery.children import Child, checksum_input, planned_children, retains
from components.machinery.output_values import NOT_RENDERED, from_rendered, render_when_known, secret_if
from components.render import optional_kinds, render_workload
from components.render.objects import KINDS, ObjectKind, RenderedWorkload

__all__ = ["Prepared", "WorkloadComponent"]


@contextmanager
def labelled(label: str) -> Iterator[None]:
    """Argument problems raised inside, each prefixed by ``label`` (``connectors[3] (name)``)."""
    try:
        yield
    except InvalidArgumentsError as error:
        raise error.about(label) from None


@dataclass(frozen=True)
class Prepared:
    """What a component otherwise finds out itself, decided beforehand by its caller: the program
    reads every entry's referenced objects and decides every registration's route before it
    creates any component; the component package brings its own registration resource; a
    library user may name the cluster that referenced objects are read from."""

    label: str | None = None
    """How messages name the workload (default ``connector "<name>"`` or ``proxy "<name>"``)."""
    references: ResolvedReferences | None = None
    """The referenced objects, already read; None: read now with ``reference_reader``."""
    reference_reader: ReferenceReader | None = None
    """Where referenced objects are read; None: the cluster ``kubeconfig`` and ``kube_context``
    name (a path or a kubeconfig's content), else the ambient one."""
    kubeconfig: str | None = None
    kube_context: str | None = None
    secret_inputs: Collection[str] = ()
    """Top-level arguments (snake_case) that held a secret somewhere inside (a caller in another
    language marks values, not fields, secret): what is made from them is secret in state."""
    route: str | pulumi.Output[str] | None = None
    """The registration's route, when already decided; None: decided now."""
    registration_type: Callable[..., pulumi.CustomResource] | None = None
    """The registration's resource (the component package serves its own, so that no Python
    dynamic provider is needed in other languages); None: the dynamic ``Registration``."""

    def reader(self) -> ReferenceReader:
        return self.reference_reader or ClusterReader(self.kubeconfig, self.kube_context)


@dataclass
class Planned:
    """A workload's objects as rendered, its children as planned, and those made (by kind)."""

    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload]
    children: list[Child]
    resources: dict[ObjectKind, pulumi.CustomResource]


class ComponentOutput:
    """A component's output, read as a ``pulumi.Output`` made on first read from the value the
    component computed (a plain value when known, else an Output). The SDK tracks every Output
    until the program ends, and its wait for them grows with their number: a program that never
    reads an output makes none, and the component registers its outputs, and the main command
    exports them, as the values they are (``WorkloadComponent.output_values``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, component: Any, owner: type | None = None) -> Any:
        if component is None:
            return self
        made = component.__dict__.get(f"_{self.name}_output")
        if made is None:
            made = component.__dict__[f"_{self.name}_output"] = pulumi.Output.from_input(self.value(component))
        return made

    def __set__(self, component: Any, value: Any) -> None:
        component.__dict__[f"_{self.name}_value"] = value
        component.__dict__.pop(f"_{self.name}_output", None)

    def value(self, component: Any) -> Any:
        return component.__dict__[f"_{self.name}_value"]


class WorkloadComponent(pulumi.ComponentResource):
    """A workload's objects as children of one component (see the module)."""

    current_image = ComponentOutput()
    """The image reference the Deployment runs (``pulumi.Output[str]``)."""
    config_checksum = ComponentOutput()
    """The hash of the referenced objects stamped on the pod template (``pulumi.Output[str]``)."""
    children: dict[str, str] | pulumi.Output[dict[str, str]]
    """The name of each Kubernetes object in the cluster (a custom ServiceAccount's own), by kind."""
    deployment: pulumi.CustomResource
    service: pulumi.CustomResource
    service_account: pulumi.CustomResource
    pod_disruption_budget: pulumi.CustomResource | None
    service_monitor: pulumi.CustomResource | None
    network_policy: pulumi.CustomResource | None
    ingress: pulumi.CustomResource | None
    """The children, as attributes: the optional kinds are None when not rendered."""

    def plan(
        self,
        name: str,
        args: WorkloadArgs,
        references: ResolvedReferences,
        secret_inputs: Collection[str],
        opts: pulumi.ResourceOptions | None,
        not_rendered: frozenset[str] = frozenset(),
    ) -> Planned:
        """The objects (``render_workload``'s) and the children to make of them, with the outputs
        every workload has; the component's constructor then makes the children
        (``children.planned_children`` says why there). ``secret_inputs``: arguments that held a
        secret, so the objects rendered from them are secret in state; ``not_rendered``:
        arguments no object is rendered from (a registration, whose Outputs must not delay the
        objects)."""
        secret = bool(set(secret_inputs) - NOT_RENDERED)
        rendered = secret_if(render_when_known(args, render_workload, exclude=set(not_rendered)), secret)
        checksum = checksum_input(references)
        children = planned_children(self, rendered, checksum, optional_kinds(args), retains(opts), args.rollout_timeout_seconds)
        self.current_image = from_rendered(rendered, lambda r: r.current_image)
        self.config_checksum = checksum
        self.children = from_rendered(rendered, lambda r: {kind: obj["metadata"]["name"] for kind, obj in r.by_kind().items()})
        return Planned(rendered, children, {})

    def attach_children(self, planned: Planned) -> None:
        """The children made, as attributes (an optional kind not rendered is None)."""
        for kind in KINDS:
            setattr(self, kind, planned.resources.get(kind))

    OUTPUTS_MODEL: type[Model]
    """The kind's outputs (``component_outputs``): the outputs' names and what each is, declared there alone."""
    OUTPUTS: tuple[str, ...] = ()
    SET_AS_ATTRIBUTES = frozenset({"children", "registration"})
    """Outputs the component sets as plain attributes; every other is a ``ComponentOutput``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A kind's outputs are its model's fields: a class declaring others, or missing one, is refused."""
        super().__init_subclass__(**kwargs)
        model = cls.__dict__.get("OUTPUTS_MODEL")
        if model is None:
            return
        cls.OUTPUTS = tuple(model.model_fields)
        declared = {name for name in dir(cls) if isinstance(getattr(cls, name, None), ComponentOutput)}
        if declared != set(cls.OUTPUTS) - cls.SET_AS_ATTRIBUTES:
            raise TypeError(f"{cls.__name__}: its ComponentOutput attributes are not the fields of {model.__name__}")

    def output_values(self) -> dict[str, Any]:
        """The component's outputs by their Python names, as computed (plain where known)."""
        return {name: self.output_value(name) for name in self.OUTPUTS}

    def output_value(self, name: str) -> Any:
        """An output as computed; the attribute of that name reads it as an Output."""
        attribute = getattr(type(self), name, None)
        return attribute.value(self) if isinstance(attribute, ComponentOutput) else getattr(self, name)
