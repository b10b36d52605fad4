"""Image references are checked by the distribution grammar before anything is created, for a
connector and a proxy alike: the kubelet would refuse them only at pull time (InvalidImageName)."""

from __future__ import annotations

from typing import Any

import pytest

from components import InvalidArgumentsError
from components.app.program import parse_connectors, parse_proxies
from components.render.connector import render_connector
from components.render.proxy import render_proxy


def connector(**image: Any) -> dict[str, Any]:
    return {"name": "c", "namespace": "ilm", "spec": {"image": {"repository": "r.example/team/c", "tag": "1.0", **image}}}


def proxy(**image: Any) -> dict[str, Any]:
    return {"name": "p", "namespace": "ilm", "spec": {"configTokenSecretRef": {"name": "t"}, "image": image}}


KINDS = {
    "connector": (parse_connectors, connector, "connectors[0].spec.image"),
    "proxy": (parse_proxies, proxy, "proxies[0].spec.image"),
}


def problems(kind: str, **image: Any) -> list[str]:
    parse, entry, _ = KINDS[kind]
    with pytest.raises(InvalidArgumentsError) as caught:
        parse([entry(**image)])
    return caught.value.problems


BAD_TAGS = [" ", "a b", "v9zq\n", "1.3.1@sha256:x", ".hidden", "-dash", "t" * 129, "ü"]
BAD_REPOSITORIES = ["r.example/Team/c", "r.example//c", "r.example/c/", "/c", "r.example/c d", "r.example/c_-x", "x" * 256]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("tag", BAD_TAGS)
def test_a_tag_outside_the_grammar_is_one_named_problem(kind, tag):
    found = problems(kind, tag=tag)
    assert len(found) == 1 and found[0].startswith(f"{KINDS[kind][2]}.tag: must be an image tag"), found


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("repository", BAD_REPOSITORIES)
def test_a_repository_outside_the_grammar_is_one_named_problem(kind, repository):
    found = problems(kind, repository=repository)
    assert len(found) == 1 and found[0].startswith(f"{KINDS[kind][2]}.repository: must be an image repository"), found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_megabyte_repository_is_refused_in_a_short_line(kind):
    (found,) = problems(kind, repository="a" * 1_000_000)
    assert len(found) < 400 and "a string of 1000000 characters" in found


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_registry_and_name_are_checked_and_the_joined_name_too(kind):
    assert problems(kind, registry="bad host")[0].startswith(f"{KINDS[kind][2]}.registry: must be a registry host")
    assert problems(kind, name="Upper")[0].startswith(f"{KINDS[kind][2]}.name: must be an image name")
    (joined,) = problems(kind, registry="reg.example", repository="other.example:5000/x")
    assert joined.startswith(f"{KINDS[kind][2]}: registry, repository and name joined must be")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_empty_tag_without_a_digest_is_refused(kind):
    (found,) = problems(kind, tag="")
    assert "image.tag must not be empty unless image.digest is set" in found


@pytest.mark.parametrize(
    "image",
    [
        {"repository": "r.example/team/c", "tag": "1.3.1"},
        {"repository": "localhost:5000/c", "tag": "v1_2.3-rc.1"},
        {"repository": "c", "tag": "latest"},
        {"repository": "r.example/a__b/c-d--e.f", "tag": "_x"},
        {"repository": "[fd00::1]:5000/c", "tag": "1"},
        {"registry": "reg.example:443", "repository": "team", "name": "c", "tag": "1"},
        {"repository": "r.example/c", "tag": "", "digest": "sha256:" + "a" * 64},
    ],
)
def test_references_the_grammar_allows_render_unchanged(image):
    (entry,) = parse_connectors([{"name": "c", "namespace": "ilm", "spec": {"image": image}}])
    rendered = render_connector(entry.to_args()).current_image
    base = "/".join(image[k] for k in ("registry", "repository", "name") if image.get(k))
    assert rendered == (f"{base}@{image['digest']}" if image.get("digest") else f"{base}:{image['tag']}")


def test_a_proxy_renders_its_bill_of_materials_and_an_override():
    (default,) = parse_proxies([proxy()])
    assert render_proxy(default.to_args()).current_image == "hub.omnitrustregistry.com/ilm/proxy:1.0.0"
    (custom,) = parse_proxies([proxy(registry="", repository="team/proxy", name="", tag="2.0")])
    assert render_proxy(custom.to_args()).current_image == "team/proxy:2.0"


def test_the_proxy_checks_node_selector_keys_and_its_metrics_path_like_the_connector():
    entry = proxy()
    entry["spec"]["nodeSelector"] = {"not a key!": "x"}
    entry["spec"]["metrics"] = {"enabled": True, "path": "metrics"}
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_proxies([entry])
    found = caught.value.problems
    assert any(p.startswith("proxies[0].spec.nodeSelector: keys must be qualified names") for p in found), found
    assert any(p.startswith("proxies[0].spec.metrics.path: must be an absolute path") for p in found), found


@pytest.mark.parametrize(
    ("where", "entry"),
    [
        ("connectors[0].name", {**connector(), "name": "c\n"}),
        ("connectors[0].namespace", {**connector(), "namespace": "ilm\n"}),
        ("connectors[0].labels", {**connector(), "labels": {"team": "edge\n"}}),
        ("connectors[0].spec.image.digest", connector(digest="sha256:" + "a" * 64 + "\n")),
        ("connectors[0].spec.image.tag", connector(tag="1.0\n")),
    ],
)
def test_a_trailing_newline_never_passes_a_rule(where, entry):
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_connectors([entry])
    assert any(p.startswith(where) for p in caught.value.problems), caught.value.problems
