"""Two connectors from a Python program, through the component package's generated SDK
(``pulumi_connectors``, a remote component: the package's provider builds it), as a program on a
user's machine writes it (see the README, "Other languages: the component package")."""

from __future__ import annotations

import pulumi
import pulumi_connectors as connectors
import pulumi_kubernetes as kubernetes


def program() -> None:
    config = pulumi.Config()
    # Renders the objects to a folder (no cluster); leave it out to apply to the kubeconfig's cluster.
    provider = kubernetes.Provider("kubernetes", render_yaml_to_directory=config.get("renderDirectory"))
    platform_url = config.require("platformUrl")
    payments = connectors.Connector(
        "payments",
        name="payments",
        namespace="ilm",
        image=connectors.ImageArgs(repository="registry.example.com/connectors/payments", tag=config.get("imageTag") or "v1.4.0"),
        env=[connectors.EnvVarArgs(name="API_KEY", value=config.require_secret("apiKey"))],
        registration=connectors.ConnectorRegistrationArgs(platform_url=platform_url, name="Payments", auth_type="none"),
        opts=pulumi.ResourceOptions(providers=[provider]),
    )
    grace = config.get_int("gracePeriod")
    timestamps = connectors.Connector(
        "timestamps",
        name="timestamps",
        namespace="ilm",
        labels={"team": "trust"},
        image=connectors.ImageArgs(repository="registry.example.com/connectors/timestamps", tag="v2.0.1"),
        replicas=config.get_int("timestampsReplicas") or 2,
        service=connectors.ServiceArgs(port=8443),
        lifecycle=connectors.LifecycleArgs(termination_grace_period_seconds=grace),
        registration=connectors.ConnectorRegistrationArgs(
            platform_url=platform_url,
            name="Timestamps",
            auth_type="none",
            custom_attributes=[connectors.AttributeArgs(name="region", content="eu-west")],
        ),
        opts=pulumi.ResourceOptions(parent=payments),  # its Kubernetes provider comes from the parent
    )
    pulumi.export("paymentsEndpoint", payments.endpoint)
    pulumi.export("paymentsUuid", payments.registration.apply(lambda r: r.uuid if r else None))
    pulumi.export("timestampsImage", timestamps.current_image)
    pulumi.export("timestampsUuid", timestamps.registration.apply(lambda r: r.uuid if r else None))
