// Two connectors from a Go program, through the component package (see the README, "Use from
// any Pulumi language"). main.go runs it through Go's Automation API; the tests run both as they are.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Connector is the package's connectors:index:Connector, a remote component: the package's
// provider builds it, so no generated SDK is needed.
type Connector struct {
	pulumi.ResourceState

	Endpoint       pulumi.StringOutput    `pulumi:"endpoint"`
	CurrentImage   pulumi.StringOutput    `pulumi:"currentImage"`
	ConfigChecksum pulumi.StringOutput    `pulumi:"configChecksum"`
	Children       pulumi.StringMapOutput `pulumi:"children"`
	Registration   pulumi.StringMapOutput `pulumi:"registration"`
}

func newConnector(ctx *pulumi.Context, name string, args pulumi.Map, opts ...pulumi.ResourceOption) (*Connector, error) {
	var connector Connector
	err := ctx.RegisterRemoteComponentResource("connectors:index:Connector", name, args, &connector, opts...)
	return &connector, err
}

func program(ctx *pulumi.Context) error {
	conf := config.New(ctx, "")
	// Renders the objects to a folder (no cluster); leave it out to apply to the kubeconfig's cluster.
	var kubernetes pulumi.ProviderResourceState
	err := ctx.RegisterResource("pulumi:providers:kubernetes", "kubernetes", pulumi.Map{
		"renderYamlToDirectory": pulumi.String(conf.Get("renderDirectory")),
	}, &kubernetes)
	if err != nil {
		return err
	}
	platformURL := conf.Require("platformUrl")
	tag := conf.Get("imageTag")
	if tag == "" {
		tag = "v1.4.0"
	}
	payments, err := newConnector(ctx, "payments", pulumi.Map{
		"name":      pulumi.String("payments"),
		"namespace": pulumi.String("ilm"),
		"image":     pulumi.Map{"repository": pulumi.String("registry.example.com/connectors/payments"), "tag": pulumi.String(tag)},
		"env":       pulumi.Array{pulumi.Map{"name": pulumi.String("API_KEY"), "value": conf.RequireSecret("apiKey")}},
		"registration": pulumi.Map{
			"platformUrl": pulumi.String(platformURL), "name": pulumi.String("Payments"), "authType": pulumi.String("none"),
		},
	}, pulumi.Providers(&kubernetes))
	if err != nil {
		return err
	}
	replicas := conf.GetInt("timestampsReplicas")
	if replicas == 0 {
		replicas = 2
	}
	lifecycle := pulumi.Map{}
	if grace, err := conf.TryInt("gracePeriod"); err == nil {
		lifecycle["terminationGracePeriodSeconds"] = pulumi.Int(grace)
	}
	timestamps, err := newConnector(ctx, "timestamps", pulumi.Map{
		"name":      pulumi.String("timestamps"),
		"namespace": pulumi.String("ilm"),
		"labels":    pulumi.StringMap{"team": pulumi.String("trust")},
		"image":     pulumi.Map{"repository": pulumi.String("registry.example.com/connectors/timestamps"), "tag": pulumi.String("v2.0.1")},
		"replicas":  pulumi.Int(replicas),
		"service":   pulumi.Map{"port": pulumi.Int(8443)},
		"lifecycle": lifecycle,
		"registration": pulumi.Map{
			"platformUrl": pulumi.String(platformURL), "name": pulumi.String("Timestamps"), "authType": pulumi.String("none"),
			"customAttributes": pulumi.Array{pulumi.Map{"name": pulumi.String("region"), "content": pulumi.String("eu-west")}},
		},
	}, pulumi.Parent(payments)) // its Kubernetes provider comes from the parent
	if err != nil {
		return err
	}
	ctx.Export("paymentsEndpoint", payments.Endpoint)
	ctx.Export("paymentsUuid", payments.Registration.MapIndex(pulumi.String("uuid")))
	ctx.Export("timestampsImage", timestamps.CurrentImage)
	ctx.Export("timestampsUuid", timestamps.Registration.MapIndex(pulumi.String("uuid")))
	return nil
}
