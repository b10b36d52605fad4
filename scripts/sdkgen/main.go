// Command sdkgen generates the component package's SDKs from its schema with Pulumi's own code
// generators (the Go library the CLI is built from, pinned to the CLI's version), so that no
// language host is needed: sdkgen SCHEMA KUBERNETES_SCHEMA KUBERNETES_VERSION OUT LANGUAGE...
//
// The schema refers to the Kubernetes package's types; they are read from that package's own
// schema file, given here, instead of starting its provider plugin.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "connectors-sdkgen"

// fileLoader loads the one package the schema refers to from its schema file.
type fileLoader struct {
	spec schema.PackageSpec
	pkg  *schema.Package
}

func (l *fileLoader) load(name string) (*schema.Package, error) {
	if name != l.spec.Name {
		return nil, fmt.Errorf("the schema refers to package %q, which sdkgen does not know", name)
	}
	if l.pkg == nil {
		pkg, err := schema.ImportSpec(l.spec, nil, l, schema.ValidationOptions{})
		if err != nil {
			return nil, err
		}
		l.pkg = pkg
	}
	return l.pkg, nil
}

func (l *fileLoader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return l.load(name)
}

func (l *fileLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.load(d.Name)
}

func (l *fileLoader) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	pkg, err := l.load(name)
	if err != nil {
		return nil, err
	}
	return pkg.Reference(), nil
}

func (l *fileLoader) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

func readSpec(path string) (schema.PackageSpec, error) {
	var spec schema.PackageSpec
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &spec)
	}
	return spec, err
}

// bound binds the schema anew for each language (each generator records its own settings on it).
func bound(spec schema.PackageSpec, loader schema.ReferenceLoader) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return pkg, nil
}

func generate(language string, pkg *schema.Package, loader schema.ReferenceLoader) (map[string][]byte, error) {
	switch language {
	case "nodejs":
		// As ``pulumi package add`` lays a local SDK out (compiled by its postinstall to bin/),
		// and packed with its compiled output (a published package's .gitignore leaves bin/ out).
		extra := map[string][]byte{".npmignore": []byte("node_modules/\n")}
		return nodejs.GeneratePackage(tool, pkg, extra, nil, true, loader)
	case "go":
		return gogen.GeneratePackage(tool, pkg, nil)
	case "python":
		return python.GeneratePackage(tool, pkg, nil, loader)
	}
	return nil, fmt.Errorf("no code generator for %q here", language)
}

func run(args []string) error {
	if len(args) < 5 {
		return fmt.Errorf("usage: sdkgen SCHEMA KUBERNETES_SCHEMA KUBERNETES_VERSION OUT LANGUAGE...")
	}
	spec, err := readSpec(args[0])
	if err != nil {
		return fmt.Errorf("reading %s: %w", args[0], err)
	}
	kubernetes, err := readSpec(args[1])
	if err != nil {
		return fmt.Errorf("reading %s: %w", args[1], err)
	}
	kubernetes.Version = args[2]
	loader := &fileLoader{spec: kubernetes}
	for _, language := range args[4:] {
		pkg, err := bound(spec, loader)
		if err != nil {
			return fmt.Errorf("binding the schema: %w", err)
		}
		files, err := generate(language, pkg, loader)
		if err != nil {
			return fmt.Errorf("generating the %s SDK: %w", language, err)
		}
		for name, content := range files {
			path := filepath.Join(args[3], language, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}
