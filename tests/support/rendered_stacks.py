"""Every sample stack's program under Pulumi mocks, as data: each resource it registers (type,
name, parent, inputs, secret paths, options that matter), so that a change of layout can be
shown to register exactly what it did (``tests/data/rendered-stacks/<stack>.json``).

``python -m tests.support.rendered_stacks --write`` writes the files anew after a deliberate change.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import tempfile
from typing import Any

import yaml

from .mocks import RecordingMocks, reader_for, run
from .samples import DATA, kubeconfig_text
from .skipping import ROOT

GOLDEN = DATA / "rendered-stacks"
STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def stack_config(stack: str) -> dict[str, Any]:
    """The stack file's ``connectors:`` keys, without the namespace, as the mocks take them."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return {key.removeprefix("connectors:"): value for key, value in config.items() if key.startswith("connectors:")}


class _ProxyReader:
    """Every reference of the stack's connectors and proxies, with placeholder data (a proxy's
    token Secret holds its token key)."""

    def __init__(self, config: dict[str, Any]) -> None:
        entries = [*config.get("connectors", []), *config.get("proxies", [])]
        self.inner = reader_for(entries)
        for proxy in config.get("proxies", []):
            ref = proxy["spec"]["configTokenSecretRef"]
            key = ref.get("tokenKey", "configToken")
            self.inner.objects[("secret", proxy["namespace"], ref["name"])] = {key: "dG9rZW4="}
        for entry in config.get("connectors", []):
            admin = ((entry["spec"].get("registration") or {}).get("adminCredentials") or {}).get("secretRef")
            if admin:
                keys = [admin[k] for k in ("bearerTokenKey", "clientCertificateKey", "clientKeyKey") if admin.get(k)]
                self.inner.objects[("secret", entry["namespace"], admin["name"])] = dict.fromkeys(keys, "dG9rZW4=")

    def read(self, ref: Any) -> Any:
        return self.inner.read(ref)


def recorded(stack: str) -> list[dict[str, Any]]:
    """What the stack's program registers, by type and name (the SDK registers children as they are ready)."""
    from components.app.program import connectors_program

    config = stack_config(stack)
    config.pop("renderDirectory", None)
    with tempfile.TemporaryDirectory() as folder:
        kubeconfig = pathlib.Path(folder) / "kubeconfig"
        kubeconfig.write_text(kubeconfig_text("https://127.0.0.1:6443"))
        before = os.environ.get("KUBECONFIG")
        os.environ["KUBECONFIG"] = str(kubeconfig)
        try:
            mocks = run(lambda: connectors_program(_ProxyReader(config)), config, RecordingMocks(refuse_calls=True))
        finally:
            if before is None:
                os.environ.pop("KUBECONFIG", None)
            else:
                os.environ["KUBECONFIG"] = before
    found = [
        {"type": r.type_, "name": r.name, "inputs": r.inputs, "secretPaths": sorted(r.secret_paths)} for r in mocks.resources
    ]
    return sorted(found, key=lambda r: (r["type"], r["name"]))


def golden(stack: str) -> list[dict[str, Any]]:
    return json.loads((GOLDEN / f"{stack}.json").read_text())


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python -m tests.support.rendered_stacks --write", file=sys.stderr)
        return 2
    GOLDEN.mkdir(exist_ok=True)
    for stack in STACKS:
        (GOLDEN / f"{stack}.json").write_text(json.dumps(recorded(stack), indent=1, sort_keys=True) + "\n")
        print(f"wrote {stack}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
