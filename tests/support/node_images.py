"""The node tier's images, made here (no registry can be reached): the programs in ``images/``
built as static binaries, each written as an OCI image archive (one layer: the program, no shell,
no files to write) and imported into the node's containerd, for ``imagePullPolicy: Never``.

The connector stand-in is imported under three users: numeric non-root (what a connector's image
must declare under ``runAsNonRoot``), root and a name (which the kubelet refuses to start)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pathlib
import subprocess
import tarfile
from typing import Any

IMAGES = pathlib.Path(__file__).parents[1] / "node" / "images"
REGISTRY = "registry.local"
PAUSE = f"{REGISTRY}/pause:1"
STANDIN = f"{REGISTRY}/connector-standin:1"
STANDIN_ROOT = f"{REGISTRY}/connector-standin:as-root"
STANDIN_NAMED = f"{REGISTRY}/connector-standin:as-name"
PROXY_STANDIN = f"{REGISTRY}/connectors/proxy:1"
"""The stand-in again, where a proxy's image is (``registry/repository/name``)."""
STANDIN_USER = 10001
USERS = {STANDIN: str(STANDIN_USER), STANDIN_ROOT: "0", STANDIN_NAMED: "nonroot", PROXY_STANDIN: str(STANDIN_USER)}


def build(program: str, cache: pathlib.Path) -> pathlib.Path:
    """``images/<program>`` built once per source into ``cache`` (a static linux/amd64 binary)."""
    sources = sorted([*IMAGES.glob("go.mod"), *(IMAGES / program).glob("*.go")])
    key = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    binary = cache / f"{program}-{key}"
    if not binary.exists():
        env = {**os.environ, "CGO_ENABLED": "0", "GOOS": "linux", "GOARCH": "amd64"}
        subprocess.run(["go", "build", "-o", f"{binary}.tmp", f"./{program}"], cwd=IMAGES, env=env, check=True)
        os.replace(f"{binary}.tmp", binary)
    return binary


def _blob(layout: tarfile.TarFile, data: bytes) -> dict[str, Any]:
    digest = hashlib.sha256(data).hexdigest()
    info = tarfile.TarInfo(f"blobs/sha256/{digest}")
    info.size = len(data)
    layout.addfile(info, io.BytesIO(data))
    return {"digest": f"sha256:{digest}", "size": len(data)}


def oci_archive(binary: pathlib.Path, reference: str, user: str, out: pathlib.Path) -> pathlib.Path:
    """An OCI image layout, tarred: the program at ``/entrypoint``, run as ``user``."""
    layer_bytes = io.BytesIO()
    with tarfile.open(fileobj=layer_bytes, mode="w") as layer:
        info = layer.gettarinfo(str(binary), arcname="entrypoint")
        info.uid = info.gid = 0
        info.mode = 0o755
        with binary.open("rb") as program:
            layer.addfile(info, program)
    layer_data = layer_bytes.getvalue()
    with tarfile.open(out, "w") as layout:
        layer_descriptor = {"mediaType": "application/vnd.oci.image.layer.v1.tar", **_blob(layout, layer_data)}
        config = {
            "architecture": "amd64",
            "os": "linux",
            "config": {"User": user, "Entrypoint": ["/entrypoint"], "Env": ["PATH=/"]},
            "rootfs": {"type": "layers", "diff_ids": [layer_descriptor["digest"]]},
        }
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", **_blob(layout, json.dumps(config).encode())},
            "layers": [layer_descriptor],
        }
        annotations = {"io.containerd.image.name": reference, "org.opencontainers.image.ref.name": reference.rsplit(":", 1)[1]}
        index = {
            "schemaVersion": 2,
            "manifests": [
                {
                    "mediaType": manifest["mediaType"],
                    **_blob(layout, json.dumps(manifest).encode()),
                    "platform": {"architecture": "amd64", "os": "linux"},
                    "annotations": annotations,
                }
            ],
        }
        for name, data in (("oci-layout", {"imageLayoutVersion": "1.0.0"}), ("index.json", index)):
            text = json.dumps(data).encode()
            info = tarfile.TarInfo(name)
            info.size = len(text)
            layout.addfile(info, io.BytesIO(text))
    return out


def import_images(ctr: list[str], cache: pathlib.Path, folder: pathlib.Path) -> None:
    """The pause image and the stand-in under each user, in containerd's ``k8s.io`` namespace."""
    pause, standin = build("pause", cache), build("connector", cache)
    archives = [oci_archive(pause, PAUSE, "65535", folder / "pause.tar")]
    archives += [oci_archive(standin, ref, user, folder / f"standin-{i}.tar") for i, (ref, user) in enumerate(USERS.items())]
    for archive in archives:
        subprocess.run([*ctr, "-n", "k8s.io", "images", "import", str(archive)], check=True, capture_output=True)
