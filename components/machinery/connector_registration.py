"""A connector's ``registration`` block turned into its ``Registration`` resource: the route it
takes (refused now when it cannot work), the administrator's credentials, and the inputs the
resource's table lists, each secret where the table or the config says."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import pulumi
from pydantic.alias_generators import to_snake

from components.args.problems import InvalidArgumentsError
from components.args.registration_spec import RegistrationArgs
from components.kube.kube_access import has_credentials, is_kubeconfig_content
from components.kube.referenced_objects import ResolvedReferences
from components.machinery.output_values import secret_if
from components.registration import contract
from components.registration.resource import Registration
from components.registration.route import RouteError, choose_route
from components.registration.rules import url_problem

CANNOT_WORK = "registration cannot work"
ADMIN_NEEDS_DIRECT = (
    "registration.adminCredentials need registration.route direct: the API server's service proxy (apiServerProxy) "
    "forwards neither an Authorization header nor a client certificate to the platform"
)


def _route_for(reg: RegistrationArgs, platform_url: str, kubeconfig: str | None, kube_context: str | None) -> str:
    try:
        route = choose_route(reg.route, platform_url)
    except RouteError as error:
        raise InvalidArgumentsError([str(error)], heading=CANNOT_WORK) from None
    if route == "apiServerProxy" and not has_credentials(kubeconfig, kube_context):
        raise InvalidArgumentsError(
            [
                "platformUrl is an in-cluster address that does not resolve from here, so registration.route "
                f"{reg.route} needs the API server's service proxy, but no cluster credentials (kubeconfig) were found"
            ],
            heading=CANNOT_WORK,
        )
    if route == "apiServerProxy" and reg.admin_credentials is not None:
        raise InvalidArgumentsError([ADMIN_NEEDS_DIRECT], heading=CANNOT_WORK)
    return route


def registration_route(
    reg: RegistrationArgs, kubeconfig: str | None, kube_context: str | None, label: str | None = None
) -> str | pulumi.Output[str]:
    """The route the registration will take; a route that cannot work is refused now (or, for a
    platform URL that is an Output, when it is known; ``label`` then names the connector)."""
    if reg.platform_url is None:
        raise InvalidArgumentsError(
            [
                "registration.platform: names a platform of a stack file; "
                "a program passes platformUrl (a PlatformComponent's api_endpoint)"
            ],
            heading=CANNOT_WORK,
        )
    if not isinstance(reg.platform_url, pulumi.Output):
        return _route_for(reg, reg.platform_url, kubeconfig, kube_context)  # checked by the model

    def decide_later(platform_url: Any) -> str:
        """The URL as the model would have checked it, had it been known then."""
        try:
            problem = url_problem(platform_url) if isinstance(platform_url, str) else "must be a string"
            if problem:
                raise InvalidArgumentsError([f"registration.platformUrl {problem}"], heading=CANNOT_WORK)
            return _route_for(reg, platform_url, kubeconfig, kube_context)
        except InvalidArgumentsError as error:
            raise error.about(label) if label else error from None

    return reg.platform_url.apply(decide_later)


def admin_credentials_input(reg: RegistrationArgs, references: ResolvedReferences) -> dict[str, Any] | None:
    """The administrator's credentials as the registration takes them (always made secret there)."""
    if references.admin_credentials is not None:
        return dict(references.admin_credentials)
    given = reg.admin_credentials
    if given is None:
        return None
    values = {key: getattr(given, to_snake(key)) for key in contract.ADMIN_CREDENTIAL_KEYS}
    return {key: value for key, value in values.items() if value is not None}


def planned_registration(
    parent: pulumi.Resource,
    name: str,
    reg: RegistrationArgs,
    *,
    url: pulumi.Input[str],
    route: str | pulumi.Output[str],
    references: ResolvedReferences,
    cluster: tuple[str | None, str | None],
    secret_inputs: Collection[str],
    depends_on: list[pulumi.Resource],
    label: str,
    resource: Callable[..., Any] | None = None,
    retain_on_delete: bool = False,
) -> tuple[Callable[..., Any], str, dict[str, Any], pulumi.ResourceOptions]:
    """The connector's ``Registration`` as planned (its class, name, arguments and options), a
    child of ``parent`` made after ``depends_on`` by the component's constructor (as its other
    children: ``children`` says why);
    ``cluster`` is the kubeconfig (a path or its content) and context of the proxy route;
    ``label`` is how the registration's messages name the connector; ``resource`` the class of
    the registration (default the dynamic ``Registration``; the component package has its own)."""
    kubeconfig, kube_context = cluster
    given = reg.model_dump(by_alias=True, exclude={"admin_credentials"})
    values = {i.python: given[i.config] for i in contract.TABLE if i.from_config}
    values.update(
        url=url,
        route=route,
        kubeconfig=secret_if(kubeconfig, is_kubeconfig_content(kubeconfig) or "kubeconfig" in secret_inputs),
        kube_context=kube_context,
        admin_credentials=admin_credentials_input(reg, references),
        connector_label=label,
    )
    if "registration" in secret_inputs:
        values.update({i.python: secret_if(values[i.python], True) for i in contract.TABLE if i.follows_config})
    opts = pulumi.ResourceOptions(parent=parent, depends_on=depends_on, retain_on_delete=retain_on_delete or None)
    return resource or Registration, f"{name}-registration", values, opts
