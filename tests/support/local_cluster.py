"""A real local control plane on 127.0.0.1: etcd, kube-apiserver, controller manager,
scheduler, and kwok standing in for kubelets so that pods become Running and Ready."""

from __future__ import annotations

import base64
import contextlib
import ctypes
import functools
import os
import pathlib
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import yaml

from components.app.automation.pulumi_cli import ToolsUnavailable, installed

TOKEN = "local-cluster-admin-token"
NODE = "kwok-node-0"


class ClusterUnavailable(RuntimeError):
    pass


def cluster_bin() -> pathlib.Path:
    try:
        return installed("install-cluster-tools", "the local control plane")
    except ToolsUnavailable as error:
        raise ClusterUnavailable(str(error)) from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalCluster:
    server: str
    kubeconfig: pathlib.Path
    """Admin by bearer token."""
    client_cert_kubeconfig: pathlib.Path
    """Admin by client certificate (signed by the API server's --client-ca-file)."""
    folder: pathlib.Path
    ca: pathlib.Path
    """The CA that signed the API server's serving certificate (in both kubeconfigs)."""
    pids: list[int]

    def kubeconfig_text(self) -> str:
        return self.kubeconfig.read_text()

    def api(self) -> Any:
        from kubernetes import client, config

        configuration = client.Configuration()
        config.load_kube_config(config_file=str(self.kubeconfig), client_configuration=configuration)
        return client.ApiClient(configuration)


def _wait(check: Any, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if check():
                return
        time.sleep(0.5)
    raise ClusterUnavailable(f"{what} did not come up within {seconds:g} s")


PR_SET_PDEATHSIG = 1


def _own_session_dying_with_us() -> None:
    """In the child before exec: its own session (a Ctrl-C in the terminal is ours to handle),
    and SIGKILL from the kernel if the process that started it dies, even by SIGKILL (a
    kube-apiserver sent SIGTERM with its etcd gone can wait for a long time)."""
    os.setsid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def stop_all(processes: list[subprocess.Popen[bytes]], seconds: float) -> None:
    """SIGTERM to each process group, the last started first; SIGKILL to any still running after ``seconds``."""
    for process in reversed(processes):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
    for process in processes:
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """While the cluster runs, SIGTERM (a CI time-out, ``kill``) unwinds like Ctrl-C, so that
    the cleanup below runs; the previous handler is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serving_certificate(folder: pathlib.Path) -> None:
    """A CA, and the API server's serving certificate for 127.0.0.1 signed by it."""
    openssl = functools.partial(subprocess.run, cwd=folder, check=True, capture_output=True)
    (folder / "serving.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    openssl(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "server-ca.key", "-out", "server-ca.crt",
             "-days", "1", "-subj", "/CN=local-server-ca"])  # fmt: skip
    openssl(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "apiserver.key", "-out", "apiserver.csr",
             "-subj", "/CN=127.0.0.1"])  # fmt: skip
    openssl(["openssl", "x509", "-req", "-in", "apiserver.csr", "-CA", "server-ca.crt", "-CAkey", "server-ca.key",
             "-CAcreateserial", "-out", "apiserver.crt", "-days", "1", "-extfile", "serving.ext"])  # fmt: skip


@contextlib.contextmanager
def local_cluster(folder: pathlib.Path, kwok: bool = True) -> Iterator[LocalCluster]:
    """Starts every process, yields once the API is ready and a kwok node is Ready (without
    ``kwok``: no node, for a real one; see ``tests/node``), and stops
    every process and removes the folder at the end, whatever happened: an error, Ctrl-C or
    SIGTERM; if this process is killed outright, the kernel stops them (``PR_SET_PDEATHSIG``)."""
    with stopped_by_sigterm():
        yield from _run_cluster(folder, kwok)


def _run_cluster(folder: pathlib.Path, kwok: bool) -> Iterator[LocalCluster]:
    bin_dir = cluster_bin()
    folder.mkdir(parents=True, exist_ok=True)
    processes: list[subprocess.Popen[bytes]] = []
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)

    def start(name: str, *args: str) -> None:
        log = (logs / f"{name}.log").open("wb")
        processes.append(
            subprocess.Popen(
                [str(bin_dir / name), *args], stdout=log, stderr=subprocess.STDOUT, preexec_fn=_own_session_dying_with_us
            )
        )

    try:
        subprocess.run(["openssl", "genrsa", "-out", "sa.key", "2048"], cwd=folder, check=True, capture_output=True)
        subprocess.run(
            ["openssl", "rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"], cwd=folder, check=True, capture_output=True
        )
        (folder / "tokens.csv").write_text(f'{TOKEN},admin,admin,"system:masters"\n')
        openssl = functools.partial(subprocess.run, cwd=folder, check=True, capture_output=True)
        openssl(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "client-ca.key", "-out", "client-ca.crt",
                 "-days", "1", "-subj", "/CN=local-client-ca"])  # fmt: skip
        openssl(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "admin.key", "-out", "admin.csr",
                 "-subj", "/CN=admin-by-cert/O=system:masters"])  # fmt: skip
        openssl(["openssl", "x509", "-req", "-in", "admin.csr", "-CA", "client-ca.crt", "-CAkey", "client-ca.key",
                 "-CAcreateserial", "-out", "admin.crt", "-days", "1"])  # fmt: skip
        _serving_certificate(folder)
        ca = folder / "server-ca.crt"
        etcd_client, etcd_peer, api_port = free_port(), free_port(), free_port()
        start(
            "etcd",
            "--name", "local",
            "--data-dir", str(folder / "etcd"),
            "--listen-client-urls", f"http://127.0.0.1:{etcd_client}",
            "--advertise-client-urls", f"http://127.0.0.1:{etcd_client}",
            "--listen-peer-urls", f"http://127.0.0.1:{etcd_peer}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{etcd_peer}",
            "--initial-cluster", f"local=http://127.0.0.1:{etcd_peer}",
        )  # fmt: skip
        start(
            "kube-apiserver",
            "--etcd-servers", f"http://127.0.0.1:{etcd_client}",
            "--bind-address", "127.0.0.1",
            "--advertise-address", "127.0.0.1",
            "--secure-port", str(api_port),
            "--tls-cert-file", str(folder / "apiserver.crt"),
            "--tls-private-key-file", str(folder / "apiserver.key"),
            "--service-account-key-file", str(folder / "sa.pub"),
            "--service-account-signing-key-file", str(folder / "sa.key"),
            "--service-account-issuer", "https://kubernetes.default.svc",
            "--service-cluster-ip-range", "10.96.0.0/16",
            "--authorization-mode", "RBAC",
            "--token-auth-file", str(folder / "tokens.csv"),
            "--client-ca-file", str(folder / "client-ca.crt"),
            "--endpoint-reconciler-type", "none",
        )  # fmt: skip
        server = f"https://127.0.0.1:{api_port}"
        kubeconfig, client_cert_kubeconfig = folder / "kubeconfig", folder / "kubeconfig-client-cert"
        for path, user in (
            (kubeconfig, {"token": TOKEN}),
            (client_cert_kubeconfig, {"client-certificate": str(folder / "admin.crt"), "client-key": str(folder / "admin.key")}),
        ):
            path.write_text(
                yaml.safe_dump(
                    {
                        "apiVersion": "v1",
                        "kind": "Config",
                        "clusters": [
                            {
                                "name": "local",
                                "cluster": {
                                    "server": server,
                                    "certificate-authority-data": base64.b64encode(ca.read_bytes()).decode(),
                                },
                            }
                        ],
                        "users": [{"name": "admin", "user": user}],
                        "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
                        "current-context": "local",
                    }
                )
            )
        headers = {"Authorization": f"Bearer {TOKEN}"}
        _wait(
            lambda: (
                httpx.get(f"{server}/readyz", headers=headers, verify=ssl.create_default_context(cafile=str(ca))).status_code
                == 200
            ),
            "kube-apiserver",
        )
        start(
            "kube-controller-manager",
            "--kubeconfig", str(kubeconfig),
            "--leader-elect=false",
            "--secure-port", "0",
            "--controllers", "*,-nodeipam",
            "--service-account-private-key-file", str(folder / "sa.key"),
            "--use-service-account-credentials=false",
        )  # fmt: skip
        start("kube-scheduler", "--kubeconfig", str(kubeconfig), "--leader-elect=false", "--secure-port", "0")
        cluster = LocalCluster(server, kubeconfig, client_cert_kubeconfig, folder, ca, [p.pid for p in processes])
        if not kwok:
            yield cluster
            return
        start(
            "kwok",
            "--kubeconfig", str(kubeconfig),
            "--manage-all-nodes=false",
            "--manage-nodes-with-annotation-selector", "kwok.x-k8s.io/node=fake",
            "--config", str(bin_dir.parent / "kwok-stages.yaml"),
            "--cidr", "10.244.0.0/24",
            "--node-ip", "10.244.1.1",
            "--server-address", f"127.0.0.1:{free_port()}",
        )  # fmt: skip
        cluster = LocalCluster(server, kubeconfig, client_cert_kubeconfig, folder, ca, [p.pid for p in processes])
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": NODE, "annotations": {"kwok.x-k8s.io/node": "fake"}, "labels": {"kubernetes.io/hostname": NODE}},
        }
        _wait(
            lambda: (
                httpx.post(
                    f"{server}/api/v1/nodes", json=node, headers=headers, verify=ssl.create_default_context(cafile=str(ca))
                ).status_code
                in (201, 409)
            ),
            "node creation",
        )

        def node_ready() -> bool:
            status = httpx.get(
                f"{server}/api/v1/nodes/{NODE}", headers=headers, verify=ssl.create_default_context(cafile=str(ca))
            ).json()["status"]
            ready = any(c["type"] == "Ready" and c["status"] == "True" for c in status.get("conditions", []))
            spec = httpx.get(
                f"{server}/api/v1/nodes/{NODE}", headers=headers, verify=ssl.create_default_context(cafile=str(ca))
            ).json()["spec"]
            return ready and not spec.get("taints")

        _wait(node_ready, "a Ready kwok node without taints", 90)
        yield cluster
    finally:
        stop_all(processes, 10)
        if os.environ.get("KEEP_CLUSTER_LOGS") is None:
            shutil.rmtree(folder, ignore_errors=True)
