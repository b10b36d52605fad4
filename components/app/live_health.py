"""A connector's live health, as the operator's ``Healthy`` condition reports it: ``Up`` when its
health endpoint answers 2xx, ``Down`` otherwise, ``Unknown`` while it cannot be asked (not
running, health checks disabled, no cluster to reach it through).

The endpoint is reached the way the registration reaches an in-cluster address: directly when
its name resolves from here, else through the Kubernetes API server's service proxy, within the
check's ``timeoutSeconds``, once, following no redirect. Only the status of the answer is
looked at; its body is never read into anything shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from components.args.connector_spec import HealthCheckArgs
from components.bounded_http.destination import Destination, direct
from components.bounded_http.failures import NoAnswer, RequestError, TlsRefused
from components.bounded_http.sender import Operation, Sender
from components.bounded_http.settings import RetryPolicy
from components.bounded_http.transport import Deadline
from components.kube.kube_access import NoClusterCredentials, load_access
from components.registration.route import RouteError, choose_route, through_api_server
from components.render.connector import HEALTH_PATHS

SUCCESS = tuple(range(200, 300))
State = Literal["Up", "Down", "Unknown"]


@dataclass(frozen=True)
class Health:
    state: State
    reason: str
    """Up/Down with what answered (``status 200``, ``no answer within 10 s``); why Unknown."""

    def __str__(self) -> str:
        return f"{self.state} ({self.reason})"


def destination(endpoint: str, kubeconfig: str | None, context: str | None) -> Destination:
    """The connector's Service, directly or through the API server's service proxy."""
    if choose_route("auto", endpoint) == "direct":
        return direct(endpoint)
    return through_api_server(endpoint, load_access(kubeconfig, context))


def _down_reason(error: RequestError, timeout: int) -> str:
    if isinstance(error, NoAnswer):
        return f"no answer within {timeout} s"
    if error.status is not None:
        return f"status {error.status}"
    return "TLS verification failed" if isinstance(error, TlsRefused) else "not reachable"


def probe_health(endpoint: str, check: HealthCheckArgs, kubeconfig: str | None = None, context: str | None = None) -> Health:
    """The connector's health now (see the module)."""
    if not check.enabled:
        return Health("Unknown", "health check disabled")
    try:
        target = destination(endpoint, kubeconfig, context)
    except (RouteError, NoClusterCredentials, RequestError):
        return Health("Unknown", "cluster unreachable")
    paths = (check.path,) if check.path else HEALTH_PATHS
    once = RetryPolicy(initial_seconds=check.timeout_seconds + 1, deadline_seconds=check.timeout_seconds)
    sender = Sender(target, once, deadline=Deadline(check.timeout_seconds))
    for index, path in enumerate(paths):
        later = index + 1 < len(paths)
        operation = Operation("GET", path, what="the health check", ok=SUCCESS, passed_through=(404,) * later, read_body=False)
        try:
            answer = sender.send(operation)
        except RequestError as error:
            if error.status in (401, 403) and target.through_proxy:
                return Health("Unknown", f"the API server's service proxy refused (status {error.status})")
            return Health("Down", _down_reason(error, check.timeout_seconds))
        if answer.status != 404:
            return Health("Up", f"status {answer.status}")
    return Health("Down", "status 404")
