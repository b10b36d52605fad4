// Two connectors from a Go program, through the component package and its generated SDK (see the
// README, "Other languages: the component package"). main.go runs it through Go's Automation API;
// the tests run both as they are.
package main

import (
	"github.com/otilm/pulumi-connectors/sdk/go/connectors"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func program(ctx *pulumi.Context) error {
	conf := config.New(ctx, "")
	// Renders the objects to a folder (no cluster); leave it out to apply to the kubeconfig's cluster.
	provider, err := kubernetes.NewProvider(ctx, "kubernetes", &kubernetes.ProviderArgs{
		RenderYamlToDirectory: pulumi.StringPtr(conf.Get("renderDirectory")),
	})
	if err != nil {
		return err
	}
	platformURL := pulumi.String(conf.Require("platformUrl"))
	tag := conf.Get("imageTag")
	if tag == "" {
		tag = "v1.4.0"
	}
	payments, err := connectors.NewConnector(ctx, "payments", &connectors.ConnectorArgs{
		Name:      pulumi.String("payments"),
		Namespace: pulumi.String("ilm"),
		Image:     &connectors.ImageArgs{Repository: pulumi.String("registry.example.com/connectors/payments"), Tag: pulumi.String(tag)},
		Env:       connectors.EnvVarArray{&connectors.EnvVarArgs{Name: pulumi.String("API_KEY"), Value: conf.RequireSecret("apiKey")}},
		Registration: &connectors.ConnectorRegistrationArgs{
			PlatformUrl: platformURL, Name: pulumi.String("Payments"), AuthType: connectors.ConnectorRegistrationAuthTypeNone,
		},
	}, pulumi.Providers(provider))
	if err != nil {
		return err
	}
	replicas := conf.GetInt("timestampsReplicas")
	if replicas == 0 {
		replicas = 2
	}
	lifecycle := &connectors.LifecycleArgs{}
	if grace, err := conf.TryInt("gracePeriod"); err == nil {
		lifecycle.TerminationGracePeriodSeconds = pulumi.IntPtr(grace)
	}
	timestamps, err := connectors.NewConnector(ctx, "timestamps", &connectors.ConnectorArgs{
		Name:      pulumi.String("timestamps"),
		Namespace: pulumi.String("ilm"),
		Labels:    pulumi.StringMap{"team": pulumi.String("trust")},
		Image:     &connectors.ImageArgs{Repository: pulumi.String("registry.example.com/connectors/timestamps"), Tag: pulumi.String("v2.0.1")},
		Replicas:  pulumi.IntPtr(replicas),
		Service:   &connectors.ServiceArgs{Port: pulumi.IntPtr(8443)},
		Lifecycle: lifecycle,
		Registration: &connectors.ConnectorRegistrationArgs{
			PlatformUrl: platformURL, Name: pulumi.String("Timestamps"), AuthType: connectors.ConnectorRegistrationAuthTypeNone,
			CustomAttributes: connectors.AttributeArray{&connectors.AttributeArgs{Name: pulumi.String("region"), Content: pulumi.String("eu-west")}},
		},
	}, pulumi.Parent(payments)) // its Kubernetes provider comes from the parent
	if err != nil {
		return err
	}
	uuid := func(status *connectors.RegistrationStatus) string {
		if status == nil {
			return ""
		}
		return status.Uuid
	}
	ctx.Export("paymentsEndpoint", payments.Endpoint)
	ctx.Export("paymentsUuid", payments.Registration.ApplyT(uuid))
	ctx.Export("timestampsImage", timestamps.CurrentImage)
	ctx.Export("timestampsUuid", timestamps.Registration.ApplyT(uuid))
	return nil
}
