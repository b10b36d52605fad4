// Runs src/index.ts's program through Node's Automation API (inline, with the pulumi CLI of
// PULUMI_ROOT/bin or PATH): node bin/deploy.js <preview|up|destroy> <stack> <work-dir>.
// The stack's config comes as JSON in CONNECTORS_EXAMPLE_CONFIG ({"key": {"value", "secret"}});
// the result (changes and outputs) is the last line, as JSON.
import { ConfigMap, LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";
import { program } from "./index";

async function main(): Promise<void> {
    const [operation, stackName, workDir] = process.argv.slice(2);
    const pulumiCommand = await PulumiCommand.get({ root: process.env.PULUMI_ROOT, skipVersionCheck: true });
    const stack = await LocalWorkspace.createOrSelectStack(
        { projectName: "connectors-typescript-example", stackName, program },
        { workDir, pulumiCommand, secretsProvider: "passphrase", projectSettings: { name: "connectors-typescript-example", runtime: "nodejs" } },
    );
    await stack.setAllConfig(JSON.parse(process.env.CONNECTORS_EXAMPLE_CONFIG ?? "{}") as ConfigMap);
    const onOutput = (line: string) => process.stdout.write(line);
    let result: Record<string, unknown> = {};
    if (operation === "preview") {
        result = { changes: (await stack.preview({ onOutput })).changeSummary };
    } else if (operation === "up") {
        const up = await stack.up({ onOutput });
        const outputs = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.secret ? "[secret]" : v.value]));
        result = { changes: up.summary.resourceChanges, outputs };
    } else if (operation === "destroy") {
        result = { changes: (await stack.destroy({ onOutput })).summary.resourceChanges };
    } else {
        throw new Error(`unknown operation ${operation}`);
    }
    console.log(`\n${JSON.stringify(result)}`);
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
});
