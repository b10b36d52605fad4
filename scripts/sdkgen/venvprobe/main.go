// Command venvprobe does to a Python plugin's folder what the Python language host does when
// `pulumi package add` or `pulumi package get-schema` installs a plugin written in Python: it
// reads the folder's PulumiPlugin.yaml, resolves the pip toolchain with its `virtualenv` option
// (relative to the folder) and installs the plugin's dependencies into that virtualenv, which
// first runs `python -m venv` with whichever python3 is first on PATH. It uses the SDK's own
// toolchain package (github.com/pulumi/pulumi/sdk/v3/python/toolchain), the code the host runs.
//
//	venvprobe PLUGIN_FOLDER
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"gopkg.in/yaml.v3"
)

type pluginFile struct {
	Runtime struct {
		Name    string `yaml:"name"`
		Options struct {
			Virtualenv string `yaml:"virtualenv"`
		} `yaml:"options"`
	} `yaml:"runtime"`
}

func run(folder string) error {
	data, err := os.ReadFile(filepath.Join(folder, "PulumiPlugin.yaml"))
	if err != nil {
		return err
	}
	var plugin pluginFile
	if err := yaml.Unmarshal(data, &plugin); err != nil {
		return err
	}
	tc, err := toolchain.ResolveToolchain(toolchain.PythonOptions{
		Root:       folder,
		ProgramDir: folder,
		Virtualenv: plugin.Runtime.Options.Virtualenv,
		Toolchain:  toolchain.Pip,
	})
	if err != nil {
		return err
	}
	venv, _ := tc.VirtualEnvPath(context.Background())
	fmt.Println("virtualenv:", venv)
	return tc.InstallDependencies(context.Background(), folder, false, true, os.Stdout, os.Stderr)
}

func main() {
	folder, err := filepath.Abs(os.Args[1])
	if err == nil {
		err = run(folder)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "venvprobe:", err)
		os.Exit(1)
	}
}
