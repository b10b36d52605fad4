// The component package's two components, as a TypeScript program uses them: remote
// components (the package's provider builds them), so no generated SDK is needed. Only the
// fields this example uses are typed here; `pulumi package gen-sdk` makes a typed SDK of all.
import * as pulumi from "@pulumi/pulumi";

export interface ImageArgs {
    repository: pulumi.Input<string>;
    tag: pulumi.Input<string>;
    registry?: pulumi.Input<string>;
    name?: pulumi.Input<string>;
    digest?: pulumi.Input<string>;
}

export interface RegistrationArgs {
    platformUrl: pulumi.Input<string>;
    name: pulumi.Input<string>;
    authType: pulumi.Input<string>;
    authAttributes?: pulumi.Input<pulumi.Input<{ name: string; content?: any }>[]>;
    customAttributes?: pulumi.Input<pulumi.Input<{ name: string; content?: any }>[]>;
    [setting: string]: any;
}

export interface ConnectorArgs {
    name: pulumi.Input<string>;
    namespace?: pulumi.Input<string>;
    labels?: pulumi.Input<Record<string, pulumi.Input<string>>>;
    image: pulumi.Input<ImageArgs>;
    replicas?: pulumi.Input<number>;
    service?: pulumi.Input<{ port?: pulumi.Input<number> }>;
    env?: pulumi.Input<pulumi.Input<{ name: pulumi.Input<string>; value?: pulumi.Input<string> }>[]>;
    registration?: pulumi.Input<RegistrationArgs>;
    readReferences?: pulumi.Input<boolean>;
    [field: string]: any;
}

export interface RegistrationStatus {
    uuid: string;
    status: string;
    registeredAt: string;
}

/** The Kubernetes package's provider, as @pulumi/kubernetes declares it (that package is not needed here). */
export class KubernetesProvider extends pulumi.ProviderResource {
    constructor(name: string, args: { renderYamlToDirectory?: pulumi.Input<string>; kubeconfig?: pulumi.Input<string> }, opts?: pulumi.ResourceOptions) {
        super("kubernetes", name, args, opts);
    }
}

export class Connector extends pulumi.ComponentResource {
    declare public readonly endpoint: pulumi.Output<string>;
    declare public readonly currentImage: pulumi.Output<string>;
    declare public readonly configChecksum: pulumi.Output<string>;
    declare public readonly children: pulumi.Output<Record<string, string>>;
    /** The registration's status; the same key carries the `registration` block in. */
    declare public readonly registration: pulumi.Output<RegistrationStatus | undefined>;

    constructor(name: string, args: ConnectorArgs, opts?: pulumi.ComponentResourceOptions) {
        const outputs = { endpoint: undefined, currentImage: undefined, configChecksum: undefined, children: undefined };
        super("connectors:index:Connector", name, { registration: undefined, ...args, ...outputs }, opts, true);
    }
}
