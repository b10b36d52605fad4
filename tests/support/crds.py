"""The prometheus-operator CRDs at a pinned release, fetched from the Go module proxy (cached)."""

from __future__ import annotations

import functools
import json
import pathlib
import shutil
import subprocess
from typing import Any

import yaml

PROMETHEUS_OPERATOR = "github.com/prometheus-operator/prometheus-operator@v0.85.0"


class CrdsUnavailable(RuntimeError):
    pass


@functools.cache
def prometheus_operator_dir() -> pathlib.Path:
    if shutil.which("go") is None:
        raise CrdsUnavailable("Go is not installed: the prometheus-operator CRDs cannot be fetched")
    out = subprocess.run(["go", "mod", "download", "-json", PROMETHEUS_OPERATOR], capture_output=True, text=True)
    if out.returncode != 0:
        raise CrdsUnavailable(f"go mod download {PROMETHEUS_OPERATOR} failed: {out.stdout[-500:]}{out.stderr[-500:]}")
    return pathlib.Path(json.loads(out.stdout)["Dir"])


def service_monitor_crd_path() -> pathlib.Path:
    return prometheus_operator_dir() / "example" / "prometheus-operator-crd" / "monitoring.coreos.com_servicemonitors.yaml"


@functools.cache
def service_monitor_schema() -> dict[str, Any]:
    crd = yaml.safe_load(service_monitor_crd_path().read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return version["schema"]["openAPIV3Schema"]
