"""``status --check``'s problems from what the status saw (``components/app/command/stack_check``), one row each."""

from __future__ import annotations

import pytest

from components.app.command.stack_check import Problem, owner_of, workload_problems
from components.app.command.stack_status import MISSING, Live, Row


def live(*rows: Row, expects: set[str] = frozenset()) -> Live:
    return Live(list(rows), {}, set(expects), render_mode=False, cluster_unreachable=False)


@pytest.mark.parametrize(
    ("row", "expects", "lines"),
    [
        (Row("connector", "x509", ready="1/1", health="Up (status 200)", uuid="u"), {"x509"}, []),
        (
            Row("connector", "x509", ready="1/2", health="Up (status 200)"),
            set(),
            ["connector x509: not Ready (1 of 2 replicas ready)"],
        ),
        (Row("connector", "x509", ready=MISSING), set(), ["connector x509: not Ready (its Deployment is not in the cluster)"]),
        (Row("connector", "x509", ready="1/1", health="Down (status 503)"), set(), ["connector x509: not Healthy (status 503)"]),
        (Row("connector", "x509", ready="1/1", health="Unknown (health check disabled)"), set(), []),
        (
            Row("connector", "x509", ready="1/1", health="Up (status 200)"),
            {"x509"},
            ["connector x509: not registered (the stack expects a registration and its state has none)"],
        ),
        (Row("proxy", "edge", ready="0/1"), set(), ["proxy edge: not Ready (0 of 1 replicas ready)"]),
        (
            Row("connector", "x509", ready="0/2:CrashLoopBackOff,CreateContainerConfigError"),
            set(),
            ["connector x509: not Ready (0 of 2 replicas ready: CrashLoopBackOff, CreateContainerConfigError)"],
        ),
        (Row("platform", "ilm", ready="6/6", status="Running"), set(), []),
        (Row("platform", "ilm", ready="-", status="-"), set(), []),
        (
            Row("platform", "ilm", ready="5/6", health="auth 0/1:CrashLoopBackOff", status="Progressing"),
            set(),
            ["platform ilm: not Running (not ready: auth 0/1:CrashLoopBackOff)"],
        ),
        (
            Row("platform", "ilm", ready="5/6", health="utils 0/1", status="Running"),
            set(),
            ["platform ilm: not Ready (not ready: utils 0/1)"],
        ),
        (
            Row("connector", "x509", ready="1/1", uuid="uuid-unknown"),
            {"x509"},
            [
                "connector x509: uuid unknown (the platform holds the record an interrupted run posted: give "
                "registration.adminCredentials (the next up or refresh finds it), or set registration.uuid to its uuid)"
            ],
        ),
    ],
)
def test_workload_problems(row, expects, lines):
    assert [p.line() for p in workload_problems(live(row, expects=expects))] == lines


@pytest.mark.parametrize(
    ("urn", "owner"),
    [
        ("urn:pulumi:live::connectors::connectors:index:Connector$kubernetes:apps/v1:Deployment::x509", "connector x509"),
        ("urn:pulumi:live::connectors::connectors:index:Proxy$kubernetes:core/v1:Service::edge", "proxy edge"),
        ("urn:pulumi:live::connectors::kubernetes:core/v1:Namespace::namespace/ilm", "namespace/ilm"),
    ],
)
def test_owner_of(urn, owner):
    assert owner_of(urn) == owner


def test_a_problem_is_one_line():
    assert Problem("connector x", "drift", "Service x is not in the cluster: it would be created").line() == (
        "connector x: drift (Service x is not in the cluster: it would be created)"
    )
