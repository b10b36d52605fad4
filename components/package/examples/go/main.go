// Runs program.go's program through Go's Automation API (inline, with the pulumi CLI of
// PULUMI_ROOT/bin or PATH):
//
//	connectors-go-example <preview|up|destroy> <stack> <work-dir>
//
// The stack's config comes as JSON in CONNECTORS_EXAMPLE_CONFIG ({"key": {"value", "secret"}});
// the result (changes and outputs) is the last line, as JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

func main() {
	if err := deploy(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func deploy(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: connectors-go-example <preview|up|destroy> <stack> <work-dir>")
	}
	ctx := context.Background()
	command, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: os.Getenv("PULUMI_ROOT"), SkipVersionCheck: true})
	if err != nil {
		return err
	}
	stack, err := auto.UpsertStackInlineSource(ctx, args[1], "connectors-go-example", program,
		auto.WorkDir(args[2]), auto.Pulumi(command), auto.SecretsProvider("passphrase"))
	if err != nil {
		return err
	}
	var settings auto.ConfigMap
	if err := json.Unmarshal([]byte(os.Getenv("CONNECTORS_EXAMPLE_CONFIG")), &settings); err != nil {
		return fmt.Errorf("CONNECTORS_EXAMPLE_CONFIG: %w", err)
	}
	if err := stack.SetAllConfig(ctx, settings); err != nil {
		return err
	}
	result := map[string]any{}
	switch args[0] {
	case "preview":
		preview, err := stack.Preview(ctx, optpreview.ProgressStreams(os.Stdout))
		if err != nil {
			return err
		}
		result["changes"] = preview.ChangeSummary
	case "up":
		up, err := stack.Up(ctx, optup.ProgressStreams(os.Stdout))
		if err != nil {
			return err
		}
		outputs := map[string]any{}
		for key, value := range up.Outputs {
			outputs[key] = value.Value
			if value.Secret {
				outputs[key] = "[secret]"
			}
		}
		result["changes"], result["outputs"] = up.Summary.ResourceChanges, outputs
	case "destroy":
		destroyed, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stdout))
		if err != nil {
			return err
		}
		result["changes"] = destroyed.Summary.ResourceChanges
	default:
		return fmt.Errorf("unknown operation %s", args[0])
	}
	line, _ := json.Marshal(result)
	fmt.Printf("\n%s\n", line)
	return nil
}
