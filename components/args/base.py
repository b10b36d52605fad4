"""The base of every argument model, validation into a model, and a workload's identity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from components.args.fields import DnsLabel, Labels
from components.args.problems import InvalidArgumentsError, describe, kind_of

__all__ = ["FROM_OPERATOR", "EntryIdentity", "Identity", "Model", "NotInPackage", "validated"]


class NotInPackage:
    """Marks a field the component package's schema leaves out, for no other language can give
    it: a Python program's own resource object, a stack file's name of one of its platforms."""


class Model(BaseModel):
    """Base of every argument model: camelCase aliases, snake_case names, no unknown fields.

    Built directly from Python (``ConnectorArgs(name=..., replicas=...)``), a model refuses bad
    input with ``InvalidArgumentsError`` like the stack config does: every problem by its path,
    no value repeated (pydantic's own error would print the values)."""

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise InvalidArgumentsError(describe(error), heading=f"invalid {type(self).__name__}") from None

    # Only a direct call goes through this ``__init__``: pydantic still validates nested models
    # itself (it would call an overridden ``__init__`` for them and lose the nested paths).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        frozen=True,
        # No silent conversions: `replicas: true` or `port: "80"` is an error, not 1 or 80.
        strict=True,
        # Field docstrings are the fields' descriptions (the component package's schema shows them).
        use_attribute_docstrings=True,
    )


M = TypeVar("M", bound=Model)


def validated(model: type[M], args: M | Mapping[str, Any], path: str = "", heading: str = "invalid connector arguments") -> M:
    """``args`` as a ``model``: given as one, or validated from a mapping; else
    ``InvalidArgumentsError`` listing every offending field."""
    if isinstance(args, model):
        return args
    if not isinstance(args, Mapping):
        raise InvalidArgumentsError([f"{path or 'args'}: must be {model.__name__} or a mapping of them (got {kind_of(args)})"])
    try:
        return model.model_validate(dict(args))
    except ValidationError as error:
        raise InvalidArgumentsError(describe(error, path), heading) from None


FROM_OPERATOR = """Take over a workload the reference operator runs today without a pod restart: the
pod template is rendered exactly as the operator renders it (its managed-by value on the pods,
its container security contexts, no default anti-affinity), so the running ReplicaSet is kept.
Every object becomes the program's. Turning it off later rolls the pods once."""


class Identity(Model):
    """Who a workload is: what a manifest's metadata says, plus the takeover setting."""

    name: DnsLabel
    """The workload's name: every object's name."""
    namespace: DnsLabel = "default"
    """The namespace of every object."""
    labels: Labels = {}
    """Labels on every object."""
    from_operator: Annotated[bool, Field(description=FROM_OPERATOR)] = False


class EntryIdentity(Identity):
    """An entry of a stack's list: as ``Identity``, with the namespace always written out."""

    namespace: DnsLabel
    """The namespace of every object."""
    protect: bool = False
    """Protect the entry's resources: a destroy, or the entry's removal, stops with an error instead of deleting them."""
    retain_on_delete: bool = False
    """Keep the entry's Kubernetes objects (and its record on the platform) when its resources leave the stack."""

    def flattened(self, spec: BaseModel) -> dict[str, Any]:
        """The spec's fields and the identity's, as the matching ``...Args`` take them."""
        return {**dict(spec), **{field: getattr(self, field) for field in Identity.model_fields}}
