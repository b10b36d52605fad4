"""Property-based: any valid arguments render schema-valid objects; invalid ones name the field."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components import InvalidArgumentsError, validate_args
from components.render.connector import render_connector

from .schema import assert_valid

label = st.from_regex(r"[a-z]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)
env_name = st.from_regex(r"[A-Z_][A-Z0-9_]{0,15}", fullmatch=True)
probe = st.none() | st.fixed_dictionaries(
    {"path": st.sampled_from(["", "/health", "/v1/health"])},
    optional={
        "initialDelaySeconds": st.integers(0, 100),
        "periodSeconds": st.integers(1, 60),
        "failureThreshold": st.integers(1, 50),
    },
)


@st.composite
def connector_args(draw: st.DrawFn) -> dict:
    refs = draw(st.lists(st.tuples(label, st.sampled_from(["env", "volume"])), max_size=3, unique_by=lambda t: t[0]))
    args = {
        "name": draw(label),
        "namespace": draw(label),
        "image": {"repository": draw(label), "tag": draw(st.from_regex(r"[0-9]\.[0-9]{1,2}", fullmatch=True))},
        "replicas": draw(st.integers(0, 5)),
        "service": {
            "port": draw(st.integers(1, 65535)),
            "type": draw(st.sampled_from(["ClusterIP", "NodePort", "LoadBalancer"])),
        },
        "env": [{"name": n, "value": "v"} for n in draw(st.lists(env_name, max_size=3, unique=True))],
        "secretRefs": [{"name": n, "type": t, **({"mountPath": f"/m/{n}"} if t == "volume" else {})} for n, t in refs],
        "probes": {k: v for k, v in (("liveness", draw(probe)), ("startup", draw(probe))) if v is not None},
        "lifecycle": {"podDisruptionBudget": {"enabled": draw(st.booleans())}},
        "networkPolicy": {"enabled": draw(st.booleans())},
    }
    return args


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(connector_args())
def test_valid_arguments_render_schema_valid_objects(args):
    for obj in render_connector(validate_args(args)).objects():
        assert_valid(obj)


MUTATIONS = [
    (lambda a: a["service"].__setitem__("port", 0), "service.port"),
    (lambda a: a.__setitem__("replicas", -3), "replicas"),
    (lambda a: a["image"].__setitem__("digest", "md5:00"), "image.digest"),
    (lambda a: a.__setitem__("name", "Upper_Case"), "name"),
    (lambda a: a["image"].__setitem__("pullPolicy", "Maybe"), "image.pullPolicy"),
    (lambda a: a.__setitem__("unknownField", 1), "unknownField"),
]


@pytest.mark.parametrize(("mutate", "path"), MUTATIONS)
@settings(max_examples=15, deadline=None)
@given(args=connector_args())
def test_mutations_into_invalid_arguments_are_refused_with_the_field_path(args, mutate, path):
    mutate(args)
    with pytest.raises(InvalidArgumentsError) as caught:
        validate_args(args)
    assert any(p.startswith(f"{path}:") for p in caught.value.problems), caught.value.problems
