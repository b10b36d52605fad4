// Two connectors from a TypeScript program, through the component package and its generated
// SDK (see the README, "Other languages: the component package"). The tests run this program as
// it is, through Node's Automation API (src/deploy.ts), with the real engine.
import * as connectors from "@otilm/pulumi-connectors";
import * as kubernetes from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

export async function program() {
    const config = new pulumi.Config();
    // Renders the objects to a folder (no cluster); leave it out to apply to the kubeconfig's cluster.
    const provider = new kubernetes.Provider("kubernetes", {
        renderYamlToDirectory: config.get("renderDirectory"),
        kubeconfig: config.get("kubeconfig"),
    });
    const platformUrl = config.require("platformUrl");

    const payments = new connectors.Connector(
        "payments",
        {
            name: "payments",
            namespace: "ilm",
            image: { repository: "registry.example.com/connectors/payments", tag: config.get("imageTag") ?? "v1.4.0" },
            env: [{ name: "API_KEY", value: config.requireSecret("apiKey") }],
            registration: { platformUrl, name: "Payments", authType: "none" },
        },
        { providers: [provider] },
    );
    const timestamps = new connectors.Connector(
        "timestamps",
        {
            name: "timestamps",
            namespace: "ilm",
            labels: { team: "trust" },
            image: { repository: "registry.example.com/connectors/timestamps", tag: "v2.0.1" },
            replicas: config.getNumber("timestampsReplicas") ?? 2,
            service: { port: 8443 },
            lifecycle: { terminationGracePeriodSeconds: config.getNumber("gracePeriod") },
            registration: {
                platformUrl,
                name: "Timestamps",
                authType: "none",
                customAttributes: [{ name: "region", content: "eu-west" }],
            },
        },
        { parent: payments }, // its Kubernetes provider comes from the parent
    );
    return {
        paymentsEndpoint: payments.endpoint,
        paymentsUuid: payments.registration.apply((r) => r?.uuid),
        timestampsImage: timestamps.currentImage,
        timestampsUuid: timestamps.registration.apply((r) => r?.uuid),
    };
}
