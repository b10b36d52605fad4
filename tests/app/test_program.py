"""What a user can write never ends in a traceback, and no message repeats a value from the config.

Every input is a stack config's ``connectors`` value (or Python arguments); the only exception
that may leave the program for a user's mistake is ``InvalidArgumentsError``, listing every
problem by its field path, and never the value (any of it may be a secret).

Every sample stack registers exactly what it registered when its golden file was written
(``tests/data/rendered-stacks/``): types, names, inputs and which of them are secret. A change
of layout changes none of it; a deliberate change rewrites the files (``tests/support/rendered_stacks.py``)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components import ConnectorComponent, InvalidArgumentsError, validate_args
from components.app.program import connectors_program, parse_connectors
from components.machinery.workload_component import Prepared
from tests.support.samples import SAMPLE_STACKS, stack_connectors

from ..support.junk import CANARY_NUMBER, CANARY_TEXT, canary_variants, junk, nested, paths_of, planted
from ..support.mocks import RecordingMocks, StaticReader, reader_for, run
from ..support.operator_platform import minimal_spec
from ..support.rendered_stacks import STACKS, golden, recorded


def outcome(
    connectors: Any, capsys: pytest.CaptureFixture[str] | None = None, caplog: pytest.LogCaptureFixture | None = None
) -> str:
    """Everything the program says for this config: its error, or its logs; raises on any
    exception other than ``InvalidArgumentsError``."""
    mocks = RecordingMocks()
    said = ""
    try:
        parse_connectors(connectors)
        run(lambda: connectors_program(reader_for(connectors)), {"connectors": connectors}, mocks)
    except InvalidArgumentsError as error:
        said = str(error)
    except Exception as error:  # a traceback a user would see
        cause = error
        while cause.__cause__ is not None or cause.__context__ is not None:
            if isinstance(cause.__cause__ or cause.__context__, InvalidArgumentsError):
                said = str(cause.__cause__ or cause.__context__)
                break
            cause = cause.__cause__ or cause.__context__  # type: ignore[assignment]
        else:
            raise
    if capsys is not None:
        out, err = capsys.readouterr()
        said += out + err
    if caplog is not None:  # under mocks, pulumi.log goes to Python's logging
        said += caplog.text
        caplog.clear()
    return said


def entry(**spec: Any) -> dict[str, Any]:
    return {"name": "demo", "namespace": "ilm", "spec": {"image": {"repository": "r/x", "tag": "1"}, **spec}}


def problems_of(*entries: dict[str, Any]) -> list[str]:
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_connectors(list(entries))
    return caught.value.problems


def problem_at(path: str, *entries: dict[str, Any]) -> str:
    problems = problems_of(*entries)
    found = [p for p in problems if p.startswith(f"{path}:")]
    assert found, problems
    return found[0]


# The classes of traceback seen with 1,500 mutated configs, each now a named problem.
@pytest.mark.parametrize(
    ("spec", "path", "rule"),
    [
        ({"image": {"repository": "r", "tag": "1", "digest": 5}}, "connectors[0].spec.image.digest", "must be a string"),
        ({"image": {"repository": "r", "tag": "1", "digest": ["sha256:x"]}}, "connectors[0].spec.image.digest", "string"),
        ({"podAnnotations": {"a": ["x"]}}, "connectors[0].spec.podAnnotations.a", "must be a string"),
        ({"podAnnotations": {"a": {"b": "c"}}}, "connectors[0].spec.podAnnotations.a", "must be a string"),
        ({"podAnnotations": {"prometheus.io/scrape": True}}, "connectors[0].spec.podAnnotations.prometheus.io/scrape", "string"),
        ({"podLabels": {"tier": 3}}, "connectors[0].spec.podLabels.tier", "must be a string"),
        ({"podLabels": {"tier": "not a label value"}}, "connectors[0].spec.podLabels.tier", "label value"),
        ({"podLabels": {"bad key!": "x"}}, "connectors[0].spec.podLabels", "qualified names"),
        ({"replicas": 2147483648}, "connectors[0].spec.replicas", "2147483647"),
        ({"replicas": True}, "connectors[0].spec.replicas", "valid integer"),
        ({"replicas": "3"}, "connectors[0].spec.replicas", "valid integer"),
        (
            {"probes": {"liveness": {"path": "/h", "failureThreshold": 10**30}}},
            "connectors[0].spec.probes.liveness.failureThreshold",
            "2147483647",
        ),
        (
            {"lifecycle": {"terminationGracePeriodSeconds": 2**64}},
            "connectors[0].spec.lifecycle.terminationGracePeriodSeconds",
            "less than",
        ),
        (
            {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 2**40}}},
            "connectors[0].spec.strategy.rollingUpdate.maxSurge",
            "2147483647",
        ),
        ({"affinity": nested(300)}, "connectors[0].spec.affinity", "nested more than 32 levels"),
        ({"tolerations": [nested(300)]}, "connectors[0].spec.tolerations[0]", "nested more than 32 levels"),
        (
            {"initContainers": [{"name": "i", "image": "x", "args": [nested(300)]}]},
            "connectors[0].spec.initContainers[0]",
            "nested",
        ),
        ({"sidecars": [{"name": "s", "image": "x", "env": [nested(300)]}]}, "connectors[0].spec.sidecars[0]", "nested"),
        ({"tolerations": [{"operator": "Maybe"}]}, "connectors[0].spec.tolerations[0].operator", "'Exists', 'Equal'"),
        ({"tolerations": [{"effect": "Sometimes"}]}, "connectors[0].spec.tolerations[0].effect", "'NoSchedule'"),
        ({"tolerations": [{"tolerationSeconds": "soon"}]}, "connectors[0].spec.tolerations[0].tolerationSeconds", "an integer"),
        ({"resources": {"limits": {"cpu": "lots"}}}, "connectors[0].spec.resources.limits.cpu", "Kubernetes quantity"),
        ({"resources": {"limits": {"cpu": "500m"}, "request": {}}}, "connectors[0].spec.resources.request", "unknown field"),
        ({"affinity": {"nodeAfinity": {}}}, "connectors[0].spec.affinity.nodeAfinity", "unknown field"),
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Near"}]}]
                        }
                    }
                }
            },
            "connectors[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
            "'In'",
        ),
        (
            {"sidecars": [{"name": "s", "image": "x", "imagePullPolicy": "Often"}]},
            "connectors[0].spec.sidecars[0].imagePullPolicy",
            "'Always'",
        ),
        (
            {"sidecars": [{"name": "s", "image": "x", "ports": [{"containerPort": 2**40}]}]},
            "connectors[0].spec.sidecars[0].ports[0].containerPort",
            "int32",
        ),
        (
            {"sidecars": [{"name": "s", "image": "x", "resources": {"limits": {"memory": "much"}}}]},
            "connectors[0].spec.sidecars[0].resources.limits.memory",
            "quantity",
        ),
        (
            {"volumes": [{"name": "v", "mountPath": "/v", "emptyDir": {"sizeLimit": "big"}}]},
            "connectors[0].spec.volumes[0].emptyDir.sizeLimit",
            "pattern",
        ),
        (
            {
                "registration": {
                    "platformUrl": "https://p/api",
                    "name": "n",
                    "authType": "none",
                    "customAttributes": [{"name": "c", "content": nested(300)}],
                }
            },
            "connectors[0].spec.registration.customAttributes[0].content",
            "nested more than 32 levels",
        ),
    ],
)
def test_each_class_of_bad_input_is_a_named_problem(spec, path, rule):
    assert rule in problem_at(path, entry(**spec))


@pytest.mark.parametrize(
    "url",
    ["http://core.ilm.svc.cluster.local:99999/api", "http://core.ilm.svc:abc/api", "http://[::1", "ftp://core/api", "https://"],
)
@pytest.mark.parametrize("route", ["auto", "direct", "apiServerProxy"])
def test_a_broken_platform_url_is_refused_on_every_route_and_in_render_mode(url, route, ambient_kubeconfig):
    registration = {"platformUrl": url, "name": "n", "authType": "none", "route": route}
    assert "platformUrl" in problem_at("connectors[0].spec.registration", entry(registration=registration))
    with pytest.raises(InvalidArgumentsError, match="platformUrl"):
        run(lambda: connectors_program(), {"connectors": [entry(registration=registration)], "renderDirectory": "/tmp/unused"})


def test_an_output_platform_url_that_is_broken_fails_naming_the_connector():
    import pulumi

    failures: list[str] = []

    def program() -> Any:
        component = ConnectorComponent(
            "late",
            {
                "name": "late",
                "image": {"repository": "r", "tag": "1"},
                "registration": {"platformUrl": pulumi.Output.from_input("http://[::1"), "name": "n", "authType": "none"},
            },
            prepared=Prepared(label="connector late"),
        )
        return component.registration.uuid.apply(lambda _: None)  # type: ignore[union-attr]

    try:
        run(program)
    except Exception as error:
        failures.append(str(error))
    assert failures and "connector late" in failures[0] and "registration.platformUrl" in failures[0]


@pytest.mark.parametrize("raw", ["{}", '""', "0", "false", '"abc"', '{"name": "x"}', "abc"])
def test_connectors_of_the_wrong_type_is_an_error(raw):
    with pytest.raises(InvalidArgumentsError, match=r"connectors: must be a list of connectors \(got "):
        run(lambda: connectors_program(), {"connectors": raw, "renderDirectory": "/tmp/unused"})


@pytest.mark.parametrize("config", [{"connectors": "[]"}, {"proxies": "[]"}, {"connectors": "[]", "proxies": "[]"}])
def test_only_an_empty_list_means_no_connectors(config):
    mocks = run(lambda: connectors_program(), {**config, "renderDirectory": "/tmp/unused"})
    assert [r.type_ for r in mocks.resources if r.type_.startswith("connectors:")] == []


def test_settings_with_neither_list_are_refused_before_anything_is_created():
    """A missing or misplaced stack file reads as no entries: running it would delete the stack."""
    with pytest.raises(InvalidArgumentsError, match="neither connectors:connectors nor connectors:proxies is set") as raised:
        run(lambda: connectors_program(), {"renderDirectory": "/tmp/unused"})
    assert "connectors:connectors: []" in str(raised.value)


def test_a_config_nested_beyond_what_json_can_parse_is_an_error():
    with pytest.raises(InvalidArgumentsError, match="nested too deeply"):
        run(lambda: connectors_program(), {"connectors": "[" * 100_000 + "]" * 100_000})


def test_duplicate_names_name_both_entries():
    problems = problems_of(entry(), entry(replicas=2), {**entry(), "namespace": "other"})
    assert problems == ["connectors[1] (demo): the name is taken in its namespace by connectors[0]"]


def test_route_errors_name_the_entry(monkeypatch):
    monkeypatch.setenv("KUBECONFIG", "/nonexistent/kubeconfig")
    monkeypatch.setenv("HOME", "/nonexistent")
    registration = {"platformUrl": "https://core.ilm.svc.cluster.local/api", "name": "n", "authType": "none"}
    config = {"connectors": [entry(), {**entry(registration=registration), "name": "second"}]}
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(), config)
    assert caught.value.heading == "registration cannot work"
    assert all(p.startswith("connectors[1] (second): ") for p in caught.value.problems), caught.value.problems


def test_missing_references_name_the_entry():
    config = {"connectors": [entry(secretRefs=[{"name": "creds", "type": "env"}])]}
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(reader_for([])), config)
    assert caught.value.problems == ['connectors[0] (demo): Secret "creds" not found in namespace "ilm"']


def test_python_arguments_of_the_wrong_shape_are_refused_by_the_component():
    with pytest.raises(InvalidArgumentsError, match=r'connector "x": args: must be ConnectorArgs'):
        run(lambda: ConnectorComponent("x", ["not", "a", "mapping"]))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: ConnectorComponent("x", {"name": "x", "image": {"repository": "r", "tag": "1"}, "replicas": -1}))
    assert caught.value.problems[0].startswith('connector "x": replicas:')


def test_a_huge_value_makes_a_short_problem_line():
    huge = "9" * 1_000_000
    problems = problems_of(entry(replicas=huge, env=[{"name": "X", "value": 5}], podLabels={"a": huge}))
    assert len(problems) == 3
    assert all(len(p) < 200 for p in problems), [len(p) for p in problems]
    assert "(got a string of 1000000 characters)" in problems[0]


def test_long_or_odd_map_keys_are_not_repeated_in_paths():
    key = "SECRET-" + "k" * 100
    problem = problem_at("connectors[0].spec.podAnnotations.<a key of 107 characters>", entry(podAnnotations={key: 5}))
    assert key not in problem


@pytest.mark.parametrize("stack", SAMPLE_STACKS)
def test_a_canary_in_any_field_never_appears_in_a_message(stack, ambient_kubeconfig, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    (connector,) = stack_connectors(stack)
    checked = 0
    for path, canary in canary_variants(connector):
        said = outcome([planted(connector, path, canary)], capsys, caplog)
        for text in (CANARY_TEXT, str(CANARY_NUMBER)):
            assert text not in said, f"{'.'.join(map(str, path))}: {said[:500]}"
        checked += 1
    assert checked > 40


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), stack=st.sampled_from(SAMPLE_STACKS))
def test_junk_anywhere_is_refused_cleanly_or_accepted(data, stack):
    (connector,) = stack_connectors(stack)
    path = data.draw(st.sampled_from(list(paths_of(connector))))
    mutated = planted(connector, path, data.draw(junk))
    try:
        parse_connectors([mutated])
    except InvalidArgumentsError as error:
        assert all(len(p) < 400 for p in error.problems)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_junk_in_python_arguments_is_refused_cleanly_or_accepted(data):
    (connector,) = stack_connectors("full")
    args = {**connector["spec"], "name": connector["name"], "namespace": connector["namespace"]}
    path = data.draw(st.sampled_from(list(paths_of(args))))
    try:
        validate_args(planted(args, path, data.draw(junk)))
    except InvalidArgumentsError:
        pass


@settings(
    max_examples=40,
    deadline=None,
    # The ambient kubeconfig is the same file for every example.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_junk_through_the_whole_program_ends_in_objects_or_one_clean_error(data, ambient_kubeconfig):
    (connector,) = stack_connectors("full")
    path = data.draw(st.sampled_from(list(paths_of(connector))))
    outcome([planted(connector, path, data.draw(junk))])


def test_the_samples_pass_as_json_config_too():
    for stack in SAMPLE_STACKS:
        assert parse_connectors(json.loads(json.dumps(stack_connectors(stack))))


@pytest.mark.parametrize(
    ("build", "path"),
    [
        (
            lambda: __import__("components").ConnectorArgs(name="x", image={"repository": "r", "tag": "1"}, replicas=CANARY_TEXT),
            "replicas",
        ),
        (
            lambda: __import__("components.args.connector_spec", fromlist=["ImageArgs"]).ImageArgs(
                repository="r", tag="1", digest=CANARY_NUMBER
            ),
            "digest",
        ),
        (
            lambda: __import__("components.args.proxy_spec", fromlist=["ProxyArgs"]).ProxyArgs(
                name="p", config_token_secret_ref={"name": CANARY_NUMBER}
            ),
            "config_token_secret_ref.name",
        ),
    ],
)
def test_models_built_directly_from_python_refuse_like_the_config(build, path):
    with pytest.raises(InvalidArgumentsError) as caught:
        build()
    assert caught.value.problems[0].startswith(f"{path}:")
    assert CANARY_TEXT not in str(caught.value) and str(CANARY_NUMBER) not in str(caught.value)


@pytest.mark.parametrize("stack", STACKS)
def test_a_sample_stack_registers_what_its_golden_file_holds(stack):
    assert recorded(stack) == golden(stack)


def test_every_sample_stack_has_a_golden_file():
    assert len(STACKS) >= 8
    for stack in STACKS:
        assert golden(stack), stack


PLATFORM_SECRET = {("secret", "ilm", "core-secret"): {"username": "aWxt", "password": "cHc="}}


def platform_entry(namespace: str = "ilm", name: str = "ilm", **spec: Any) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "spec": {**minimal_spec(), **spec}}


def test_a_stack_of_a_platform_alone_deploys_it_and_exports_its_api():
    mocks = run(lambda: connectors_program(StaticReader(PLATFORM_SECRET)), {"platforms": [platform_entry()]})
    assert mocks.one("connectors:index:Platform").name == "ilm"
    assert mocks.one("kubernetes:core/v1:Secret").inputs["metadata"]["name"] == "auth-db"
    assert len(mocks.of_type("kubernetes:apps/v1:Deployment")) == 6


def test_a_second_platform_in_a_namespace_is_refused_naming_both():
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(), {"platforms": [platform_entry(), platform_entry(name="other")]})
    assert caught.value.problems == [
        "platforms[1] (other): namespace ilm already has a platform, platforms[0] (ilm): one platform per namespace"
    ]


def test_every_bad_field_of_a_platform_is_named_by_its_path_and_its_value_never_repeated():
    bad = platform_entry(database={"mode": "external", "port": 99999, "credentials": {"secretRef": "CANARY_VALUE"}})
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(), {"platforms": [bad]})
    text = str(caught.value)
    assert "platforms[0].spec.database" in text and "port" in text and "CANARY_VALUE" not in text
