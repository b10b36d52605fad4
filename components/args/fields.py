"""Field types of the argument models: Kubernetes names, labels, quantities, ports, image
references, and the values a Python caller may give as ``pulumi.Output``s.

Each rule raises a ``ValueError`` saying what the value must be, never what it is.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from components.args.kube_schema import bounded
from components.args.sdk_values import is_output

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
INT_OR_PERCENT = re.compile(r"^[0-9]+%$")
ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
# A label or annotation key: an optional DNS-subdomain prefix and '/', then a name of at most 63.
QUALIFIED_NAME = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
INT32_MAX = 2**31 - 1

# The image reference grammar of the OCI distribution spec (distribution/reference): a tag,
# a registry host with an optional port, and lowercase path components with separators.
IMAGE_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
IMAGE_HOST = re.compile(rf"^{_HOST}$")
IMAGE_PATH = re.compile(rf"^{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*$")
IMAGE_NAME = re.compile(rf"^(?:{_HOST}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*$")
IMAGE_NAME_MAX = 255


def _dns_label(value: str) -> str:
    """A DNS-1123 label: lowercase letters, digits and "-", at most 63 characters."""
    if len(value) > 63:
        raise ValueError(f"must be at most 63 characters, got {len(value)}")
    if not DNS_LABEL.fullmatch(value):
        raise ValueError(
            "must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit"
        )
    return value


INGRESS_HOST_RULE = (
    "must be a DNS-1123 subdomain (lowercase labels of letters, digits and '-', each at most 63 characters, "
    "joined by '.', at most 253 in all), optionally after '*.', and not an IP address"
)


def _ingress_host(value: str) -> str:
    """A host as the API server takes it for an Ingress rule: a DNS-1123 subdomain, or a wildcard one."""
    name = value.removeprefix("*.")
    labels = name.split(".")
    numeric = all(label.isdigit() for label in labels)
    if len(name) > 253 or numeric or not all(len(label) <= 63 and DNS_LABEL.fullmatch(label) for label in labels):
        raise ValueError(INGRESS_HOST_RULE)
    return value


def digest(value: Any) -> Any:
    """ "sha256:" and 64 lowercase hexadecimal digits."""
    if is_output(value) or value is None:
        return value
    if not isinstance(value, str):
        raise ValueError("must be a string")
    if not DIGEST.fullmatch(value):
        raise ValueError("must be 'sha256:' followed by 64 lowercase hex digits")
    return value


def int_or_percent(value: Any) -> Any:
    """A non-negative integer, or a percentage such as "25%"."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= INT32_MAX:
            raise ValueError(f"must be between 0 and {INT32_MAX}")
        return value
    if not isinstance(value, str) or not INT_OR_PERCENT.fullmatch(value) or len(value) > 12:
        raise ValueError("must be a non-negative integer or a percentage like '25%'")
    return value


def is_zero(value: int | str | None) -> bool:
    """0, or a zero percentage of any width ("0%", "00%"), as the operator counts it."""
    if isinstance(value, str) and INT_OR_PERCENT.fullmatch(value):
        return int(value[:-1]) == 0
    return value == 0 and not isinstance(value, bool)


def _qualified_name(value: str) -> str:
    """Keys are qualified names: an optional DNS prefix and "/", then at most 63 characters."""
    if len(value) > 316 or not QUALIFIED_NAME.fullmatch(value):
        raise ValueError(
            "keys must be qualified names: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.'"
        )
    return value


def _label_value(value: Any) -> Any:
    """A label value: at most 63 letters, digits, "-", "_" or ".", alphanumeric at both ends."""
    if isinstance(value, str) and (len(value) > 63 or not LABEL_VALUE.fullmatch(value)):
        raise ValueError("must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric")
    return value


def _absolute_path(value: str) -> str:
    """An absolute path (starting with "/")."""
    if not value.startswith("/"):
        raise ValueError("must be an absolute path starting with '/'")
    return value


def str_input(value: Any) -> Any:
    """A string (from Python, also an Output of one)."""
    if is_output(value) or isinstance(value, str):
        return value
    raise ValueError("must be a string")


def image_tag(value: Any) -> Any:
    """An image tag: at most 128 letters, digits, "_", "." or "-", not starting with "." or "-"."""
    value = str_input(value)
    if isinstance(value, str) and value and not IMAGE_TAG.fullmatch(value):
        raise ValueError("must be an image tag: at most 128 letters, digits, '_', '.' or '-', not starting with '.' or '-'")
    return value


def _image_part(pattern: re.Pattern[str], rule: str, optional: bool = False) -> Any:
    """A part of an image reference; an ``optional`` part may be empty (it is left out)."""

    def check(value: str) -> str:
        if optional and not value:
            return value
        if len(value) > IMAGE_NAME_MAX or not pattern.fullmatch(value):
            raise ValueError(f"must be {rule} (at most {IMAGE_NAME_MAX} characters)")
        return value

    check.__doc__ = f"{rule[0].upper()}{rule[1:]}."
    return check


IMAGE_REPOSITORY_RULE = (
    "an image repository: an optional registry host[:port] and '/', then lowercase path components of letters and digits "
    "separated by '/', joined inside by '.', '_', '__' or '-'"
)
IMAGE_HOST_RULE = "a registry host: DNS name components separated by '.', with an optional ':port'"
IMAGE_PATH_RULE = (
    "an image name: lowercase path components of letters and digits separated by '/', joined inside by '.', '_', '__' or '-'"
)

DnsLabel = Annotated[str, AfterValidator(_dns_label)]
IngressHost = Annotated[str, AfterValidator(_ingress_host)]
STRING = WithJsonSchema({"type": "string"})
"""The JSON Schema (docs/stack-config.schema.json) of a field that also takes an Output from Python."""
IntOrPercent = Annotated[Any, AfterValidator(int_or_percent), WithJsonSchema({"type": ["integer", "string"]})]
AbsolutePath = Annotated[str, Field(max_length=4096), AfterValidator(_absolute_path)]
EnvName = Annotated[str, Field(pattern=ENV_NAME.pattern, max_length=253)]
Port = Annotated[int, Field(ge=1, le=65535)]
# Kubernetes' int32 fields (replicas, probe settings): never negative here, at most 2^31-1.
NonNegative = Annotated[int, Field(ge=0, le=INT32_MAX)]
Positive = Annotated[int, Field(ge=1, le=INT32_MAX)]
GracePeriod = Annotated[int, Field(ge=0, le=2**63 - 1)]
# A plain string, or an Output of one when the value comes from another resource.
StrInput = Annotated[Any, AfterValidator(str_input), STRING]
Digest = Annotated[Any, AfterValidator(digest), STRING]
ImageTag = Annotated[Any, AfterValidator(image_tag), STRING]
ImageRepository = Annotated[str, AfterValidator(_image_part(IMAGE_NAME, IMAGE_REPOSITORY_RULE))]
ImageHost = Annotated[str, AfterValidator(_image_part(IMAGE_HOST, IMAGE_HOST_RULE, optional=True))]
ImagePath = Annotated[str, AfterValidator(_image_part(IMAGE_PATH, IMAGE_PATH_RULE, optional=True))]
QualifiedName = Annotated[str, AfterValidator(_qualified_name)]
# Label and annotation maps: Kubernetes takes strings only.
Labels = dict[QualifiedName, Annotated[str, AfterValidator(_label_value)]]
Annotations = dict[QualifiedName, str]
# Values that may also be Outputs (Python callers).
LabelInputs = dict[QualifiedName, Annotated[StrInput, AfterValidator(_label_value)]]
AnnotationInputs = dict[QualifiedName, StrInput]
FreeForm = Annotated[dict[str, Any], BeforeValidator(bounded)]
NonEmpty = Annotated[str, Field(min_length=1)]
SecretKeyName = Annotated[str, Field(min_length=1, max_length=253)]
