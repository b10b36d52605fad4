"""``connectors status --stack S``: a table of the stack's connectors and proxies, as
``kubectl get connector`` shows them: namespace, image, ready replicas (from the cluster when
it can be reached), live health (``live_health``), the registration's uuid and status in state,
and the platform's status when admin credentials are configured; and of its platforms: their
version, how many of their workloads are ready (those that are not, with their replicas), and
their phase, as the operator's (Running once core and auth are). ``--check`` instead lists
every problem and exits non-zero (``stack_check``). Read-only: nothing changes the state, the
cluster or the platform.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pulumi import automation as auto

from components.app.automation.engine_messages import cli_error
from components.app.automation.sdk_inline_server import SECRET_KEY
from components.app.automation.workspace import open_stack
from components.app.command.runs import RunOptions
from components.app.live_health import Health, probe_health
from components.app.program import parse_connectors, resource_names
from components.app.stack_config import cluster_of
from components.args.problems import InvalidArgumentsError
from components.registration.contract import STATUS, UUID, UUID_UNKNOWN
from components.type_tokens import COMPONENTS
from components.type_tokens import DYNAMIC_REGISTRATION as TYPE_TOKEN
from components.type_tokens import LEGACY_DYNAMIC_REGISTRATION as LEGACY_TYPE_TOKEN

REGISTRATIONS = {TYPE_TOKEN, LEGACY_TYPE_TOKEN}
"""The Python program's registrations (this command runs the Python program's stacks)."""


@dataclass
class Row:
    kind: str
    name: str
    namespace: str = "-"
    image: str = "-"
    ready: str = "-"
    health: str = "-"
    uuid: str = "-"
    status: str = "-"
    platform: str = "-"


def rows_of(resources: list[dict[str, Any]]) -> tuple[list[Row], dict[str, dict[str, Any]]]:
    """A row per component from the state, and each component's Deployment by its URN."""
    rows, deployments, by_urn = {}, {}, {}
    for resource in resources:
        kind, parent, outputs = resource["type"], resource.get("parent"), resource.get("outputs", {})
        if kind in COMPONENTS:
            rows[resource["urn"]] = Row(COMPONENTS[kind], resource["urn"].rsplit("::", 1)[-1])
            rows[resource["urn"]].image = str(outputs.get("current_image") or "-")
        elif kind == "kubernetes:apps/v1:Deployment" and parent:
            deployments[parent] = resource
        elif kind in REGISTRATIONS and parent:
            by_urn[parent] = resource
    for urn, deployment in deployments.items():
        if urn in rows:
            rows[urn].namespace = deployment["inputs"]["metadata"].get("namespace", "default")
    for urn, registration in by_urn.items():
        if urn in rows:
            uuid = registration.get("outputs", {}).get(UUID)
            unknown = registration.get("id") == UUID_UNKNOWN and not uuid  # posted by an interrupted run, its answer lost
            rows[urn].uuid = UUID_UNKNOWN if unknown else str(uuid or "-")
            rows[urn].status = str(registration.get("outputs", {}).get(STATUS) or "-")
    return list(rows.values()), {urn: d for urn, d in deployments.items() if urn in rows}


WORKLOAD_READERS = {
    "kubernetes:apps/v1:Deployment": "read_namespaced_deployment",
    "kubernetes:apps/v1:StatefulSet": "read_namespaced_stateful_set",
}
"""The kinds of workload a component's pods run in (a platform's core may be a StatefulSet), and
the client's call reading each."""


def ready_replicas(deployments: dict[str, dict[str, Any]], kubeconfig: str | None, context: str | None) -> dict[str, str]:
    """``ready/desired`` of each workload, read from the cluster, with the kubelet's reasons when
    some are not (``0/1:CrashLoopBackOff``); empty when the cluster cannot be reached."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from components.kube.kube_access import client_configuration

    try:
        api = client.ApiClient(client_configuration(kubeconfig, context))
        apps, core = client.AppsV1Api(api), client.CoreV1Api(api)
        found = {}
        for urn, deployment in deployments.items():
            meta = deployment["inputs"]["metadata"]
            read = getattr(apps, WORKLOAD_READERS[deployment["type"]])
            try:
                live = read(meta["name"], meta.get("namespace", "default"), _request_timeout=10)
            except ApiException as error:
                if error.status != 404:
                    raise
                found[urn] = MISSING
                continue
            ready = (live.status.ready_replicas if live.status else None) or 0
            desired = live.spec.replicas if live.spec and live.spec.replicas is not None else 1  # the API's default
            reasons = waiting_reasons(core, live) if ready < desired else ""
            found[urn] = f"{ready}/{desired}" + (f":{reasons}" if reasons else "")
        return found
    except Exception:  # unreachable, refused: the column says "-"
        return {}


def waiting_reasons(core: Any, deployment: Any) -> str:
    """Why the Deployment's pods' containers wait, as the kubelet says (``CrashLoopBackOff``,
    ``CreateContainerConfigError``, ``ImagePullBackOff``...), each once; never a message."""
    labels = deployment.spec.selector.match_labels or {}
    selector = ",".join(f"{key}={value}" for key, value in labels.items())
    pods = core.list_namespaced_pod(deployment.metadata.namespace, label_selector=selector, _request_timeout=10).items
    states = [c.state for pod in pods for c in (pod.status.container_statuses or []) if c.state is not None]
    return ",".join(dict.fromkeys(s.waiting.reason for s in states if s.waiting is not None and s.waiting.reason))


MISSING = "missing"
"""The Deployment is not in the cluster."""


def plain(value: Any) -> Any:
    """A value of an exported state with its secrets shown (``{sig, plaintext}`` as the value)."""
    if isinstance(value, dict) and SECRET_KEY in value:
        return plain(json.loads(value["plaintext"])) if "plaintext" in value else None
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def platform_status(registration: dict[str, Any]) -> str:
    """The platform's status of the record, with the registration's own admin credentials (a read)."""
    if not registration.get("outputs", {}).get(UUID):
        return "-"
    from components.registration.errors import RegistrationError
    from components.registration.route import platform_api_for

    props = {k: plain(v) for k, v in registration.get("outputs", {}).items() if not k.startswith("__")}
    if not props.get("admin_credentials"):
        return "-"
    try:
        with platform_api_for({**props, "deadline_seconds": 20}) as api:
            record = api.get(str(props[UUID]))
    except (RegistrationError, KeyError):
        return "unreachable"
    return record.status if record is not None else "not on the platform"


@dataclass
class Live:
    """What the state, the stack's config and the cluster say of the stack's workloads now."""

    rows: list[Row]
    entries: dict[str, Any]
    """Each connector's entry (``ConnectorEntry``) by its resource name."""
    expects_registration: set[str]
    render_mode: bool
    cluster_unreachable: bool


def connector_entries(config: dict[str, Any]) -> dict[str, Any]:
    """The stack's connector entries by resource name (as the program names them)."""
    raw = config.get("connectors:connectors")
    entries = parse_connectors(json.loads(raw)) if raw else []
    return dict(zip(resource_names(entries), entries, strict=True))


def health_of(row: Row, entry: Any, endpoint: str | None, cluster: tuple[str | None, str | None]) -> str:
    if entry is None or not endpoint:
        return "-"
    if row.ready in ("-", MISSING) or row.ready.startswith("0/"):
        return str(Health("Unknown", "not running" if row.ready != "-" else "cluster unreachable"))
    return str(probe_health(endpoint, entry.spec.health_check, *cluster))


RUNNING_WITH = ("core", "auth")
"""The workloads a platform is Running with (the operator's ``Available``)."""


def observe_platform(row: Row, component: dict[str, Any], resources: list[dict[str, Any]], cluster: Any, live: bool) -> None:
    """A platform's row: its version, its workloads ready (``ready/all``) and those not ready with
    their replicas (the health column), its phase (the status column)."""
    row.image = f"version {component.get('outputs', {}).get('version', '-')}"
    workloads = {r["urn"]: r for r in resources if r.get("parent") == component["urn"] and r["type"] in WORKLOAD_READERS}
    if workloads:
        row.namespace = next(iter(workloads.values()))["inputs"]["metadata"].get("namespace", "default")
    found = ready_replicas(workloads, *cluster) if live and workloads else {}
    if not found:
        return
    replicas = {workloads[urn]["inputs"]["metadata"]["name"]: found[urn] for urn in workloads}
    waiting = {name: state for name, state in replicas.items() if not _all_ready(state)}
    row.ready = f"{len(replicas) - len(waiting)}/{len(replicas)}"
    row.health = ", ".join(f"{name} {state}" for name, state in sorted(waiting.items())) or "-"
    row.status = "Progressing" if any(name in waiting for name in RUNNING_WITH) else "Running"


def _all_ready(state: str) -> bool:
    counts = state.partition(":")[0]
    if "/" not in counts:
        return False
    ready, desired = (int(n) for n in counts.split("/"))
    return ready >= desired


def observe(options: RunOptions) -> tuple[Any, Live]:
    """The stack, and its workloads as they are now (``auto.CommandError`` when it cannot be opened)."""
    stack = open_stack(options)
    resources = stack.export_stack().deployment.get("resources", [])
    config = {key: value.value for key, value in stack.get_all_config().items()}
    rows, deployments = rows_of(resources)
    render_mode = bool(config.get("connectors:renderDirectory"))
    cluster = cluster_of(config)
    ready = {} if render_mode else ready_replicas(deployments, *cluster)
    registrations = {r.get("parent"): r for r in resources if r["type"] in REGISTRATIONS}
    components = [r for r in resources if r["type"] in COMPONENTS]
    entries = connector_entries(config)
    for row, component in zip(rows, components, strict=True):
        if row.kind == "platform":
            observe_platform(row, component, resources, cluster, not render_mode)
            continue
        row.ready = ready.get(component["urn"], "-")
        endpoint = component.get("outputs", {}).get("endpoint") if row.kind == "connector" else None
        row.health = "-" if render_mode else health_of(row, entries.get(row.name), endpoint, cluster)
        if component["urn"] in registrations:
            row.platform = platform_status(registrations[component["urn"]])
    expects = {name for name, entry in entries.items() if entry.spec.registration is not None}
    unreachable = not render_mode and bool(deployments) and not ready
    return stack, Live(rows, entries, expects, render_mode, unreachable)


def status(options: RunOptions) -> int:
    try:
        _, live = observe(options)
    except auto.CommandError as error:
        print(f"connectors: stack {options.stack}: {cli_error(error)}")
        return 1
    except InvalidArgumentsError as error:
        print(f"connectors: stack {options.stack}: {error}")
        return 2
    print_table(live.rows)
    if live.cluster_unreachable:
        print("(the cluster could not be reached: ready replicas and health unknown)")
    return 0


def print_table(rows: list[Row]) -> None:
    header = Row("KIND", "NAME", "NAMESPACE", "IMAGE", "READY", "HEALTH", "UUID", "STATUS", "PLATFORM")
    cells = [[str(getattr(r, f)) for f in Row.__dataclass_fields__] for r in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    for row in cells:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
