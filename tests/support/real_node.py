"""One real Kubernetes node beside the local control plane (``tests.support.local_cluster``
without kwok): containerd with its own root, state and socket, runc, the bridge CNI with
host-local addresses, the kubelet and kube-proxy (iptables mode); the images of ``node_images``
imported. Every address is local: the API server on 127.0.0.1, the pods on a bridge of their own.

Stopping leaves the host as it was: the pods deleted, the processes stopped, the mounts under
the kubelet's folder undone, the iptables chains of the kubelet and kube-proxy removed (the
kubelet's ``KUBE-FIREWALL`` drops non-local packets to 127.0.0.0/8, which other tiers' network
namespaces use), the bridge deleted and IP forwarding put back as it was found."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from components.app.automation.pulumi_cli import ToolsUnavailable, installed

from .local_cluster import (
    ClusterUnavailable,
    LocalCluster,
    _own_session_dying_with_us,
    _wait,
    free_port,
    stop_all,
)
from .node_images import PAUSE, import_images

NODE = "real-node-0"
BRIDGE = "cnitest0"
POD_SUBNET = "10.244.77.0/24"
FORWARDING = pathlib.Path("/proc/sys/net/ipv4/ip_forward")
MARKER = pathlib.Path("/run/connector-tests-real-node.json")
"""Written while a node runs: where it was and what it found, for a run killed before its clean-up."""
KUBELET_CHAINS = {
    "filter": ["KUBE-FIREWALL", "KUBE-KUBELET-CANARY"],
    "nat": ["KUBE-KUBELET-CANARY"],
    "mangle": ["KUBE-KUBELET-CANARY", "KUBE-IPTABLES-HINT"],
}


@dataclass
class RealNode:
    cluster: LocalCluster
    name: str
    folder: pathlib.Path


def node_bin() -> pathlib.Path:
    if os.geteuid() != 0:
        raise ClusterUnavailable("a real node needs root (containerd, mounts, iptables)")
    try:
        return installed("install-node-tools", "the kubelet and kube-proxy")
    except ToolsUnavailable as error:
        raise ClusterUnavailable(str(error)) from None


def _configs(folder: pathlib.Path, cluster: LocalCluster) -> None:
    """containerd's, the CNI's, the kubelet's and kube-proxy's configuration files."""
    sock = folder / "containerd" / "containerd.sock"
    cni = folder / "cni"
    cni.mkdir(parents=True)
    (folder / "containerd").mkdir()
    (folder / "containerd.toml").write_text(
        f'version = 2\nroot = "{folder}/containerd/root"\nstate = "{folder}/containerd/state"\n'
        f'[grpc]\n  address = "{sock}"\n'
        f'[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "{PAUSE}"\n  restrict_oom_score_adj = true\n'
        f"  disable_apparmor = true\n"
        f'[plugins."io.containerd.grpc.v1.cri".cni]\n  bin_dir = "/usr/lib/cni"\n  conf_dir = "{cni}"\n'
    )
    network = {
        "cniVersion": "0.4.0",
        "name": "node-tests",
        "plugins": [
            {
                "type": "bridge",
                "bridge": BRIDGE,
                "isGateway": True,
                "ipMasq": False,
                "hairpinMode": True,
                "ipam": {
                    "type": "host-local",
                    "ranges": [[{"subnet": POD_SUBNET}]],
                    "routes": [{"dst": "0.0.0.0/0"}],
                    "dataDir": str(folder / "ipam"),
                },
            },
            {"type": "portmap", "capabilities": {"portMappings": True}},
        ],
    }
    (cni / "10-node-tests.conflist").write_text(json.dumps(network))
    (folder / "resolv.conf").write_text("nameserver 127.0.0.1\n")
    kubelet = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "failCgroupV1": False,
        "cgroupDriver": "cgroupfs",
        "containerRuntimeEndpoint": f"unix://{sock}",
        "address": "127.0.0.1",
        "port": free_port(),
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "healthzPort": free_port(),
        "authentication": {"anonymous": {"enabled": True}, "webhook": {"enabled": False}},
        "authorization": {"mode": "AlwaysAllow"},
        "resolvConf": str(folder / "resolv.conf"),
        "failSwapOn": False,
        "serializeImagePulls": False,
        "evictionHard": {"memory.available": "1Mi", "nodefs.available": "1%", "imagefs.available": "1%"},
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "nodeStatusReportFrequency": "5s",
        "nodeStatusUpdateFrequency": "5s",
    }
    (folder / "kubelet.yaml").write_text(yaml.safe_dump(kubelet))
    proxy = {
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
        "kind": "KubeProxyConfiguration",
        "mode": "iptables",
        "hostnameOverride": NODE,
        "clientConnection": {"kubeconfig": str(cluster.kubeconfig)},
        "conntrack": {"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s", "tcpCloseWaitTimeout": "0s"},
        "metricsBindAddress": f"127.0.0.1:{free_port()}",
        "healthzBindAddress": f"127.0.0.1:{free_port()}",
    }
    (folder / "kube-proxy.yaml").write_text(yaml.safe_dump(proxy))


@contextlib.contextmanager
def real_node(cluster: LocalCluster, folder: pathlib.Path) -> Iterator[RealNode]:
    """The node, Ready, with the images imported; everything undone at the end (see the module)."""
    bin_dir = node_bin()
    clean_after_a_killed_run(bin_dir)
    folder.mkdir(parents=True, exist_ok=True)
    forwarding, started = FORWARDING.read_text(), time.time()
    MARKER.write_text(json.dumps({"folder": str(folder), "forwarding": forwarding, "started": started}))
    ctr = ["ctr", "--address", str(folder / "containerd" / "containerd.sock")]
    processes: list[subprocess.Popen[bytes]] = []

    def start(command: list[str], log: str) -> None:
        out = (folder / f"{log}.log").open("wb")
        processes.append(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=_own_session_dying_with_us))

    try:
        _configs(folder, cluster)
        start(["containerd", "--config", str(folder / "containerd.toml")], "containerd")
        _wait(lambda: subprocess.run([*ctr, "version"], capture_output=True).returncode == 0, "containerd", 30)
        import_images(ctr, bin_dir.parent, folder)
        start(
            [str(bin_dir / "kubelet"), "--config", str(folder / "kubelet.yaml"), "--kubeconfig", str(cluster.kubeconfig),
             "--root-dir", str(folder / "kubelet"), "--hostname-override", NODE, "--v", "2"],
            "kubelet",
        )  # fmt: skip
        start([str(bin_dir / "kube-proxy"), "--config", str(folder / "kube-proxy.yaml")], "kube-proxy")
        node = RealNode(cluster, NODE, folder)
        _wait(lambda: node_ready(cluster), "the real node (kubelet)", 120)
        yield node
    finally:
        _drain(cluster)
        _stop_containers(ctr)
        stop_all(processes, 20)
        _leave_the_host_as_found(bin_dir, folder, forwarding, started)
        MARKER.unlink(missing_ok=True)


def clean_after_a_killed_run(bin_dir: pathlib.Path) -> None:
    """What a node of a run killed before its clean-up left on the host (its ``MARKER`` says
    where it was and what it found), undone before a new node starts."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        left = json.loads(MARKER.read_text())
        _leave_the_host_as_found(bin_dir, pathlib.Path(left["folder"]), left["forwarding"], float(left["started"]))
        MARKER.unlink()


def node_ready(cluster: LocalCluster) -> bool:
    from kubernetes import client

    node = client.CoreV1Api(cluster.api()).read_node(NODE)
    return any(c.type == "Ready" and c.status == "True" for c in node.status.conditions or [])


def _drain(cluster: LocalCluster) -> None:
    """Every pod deleted and waited for: the kubelet stops its containers, then its sandbox
    (the CNI's teardown of its network namespace and veth). Their Deployments and ReplicaSets
    go first (left in place, their controller makes every deleted pod again), and a pod one
    made on its way out is deleted as it is seen."""
    from kubernetes import client

    core, apps = client.CoreV1Api(cluster.api()), client.AppsV1Api(cluster.api())
    for listed, delete in (
        (apps.list_deployment_for_all_namespaces, apps.delete_namespaced_deployment),
        (apps.list_replica_set_for_all_namespaces, apps.delete_namespaced_replica_set),
    ):
        with contextlib.suppress(Exception):
            for owner in listed().items:
                with contextlib.suppress(Exception):
                    delete(owner.metadata.name, owner.metadata.namespace, propagation_policy="Orphan")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            pods = core.list_pod_for_all_namespaces().items
        except Exception:
            return
        if not pods:
            return
        for pod in pods:
            if pod.metadata.deletion_timestamp is None:
                with contextlib.suppress(Exception):
                    core.delete_namespaced_pod(pod.metadata.name, pod.metadata.namespace, grace_period_seconds=1)
        time.sleep(1)


def _tasks(ctr: list[str]) -> list[str]:
    listed = subprocess.run([*ctr, "-n", "k8s.io", "tasks", "ls", "-q"], capture_output=True, text=True)
    return listed.stdout.split() if listed.returncode == 0 else []


def _stop_containers(ctr: list[str]) -> None:
    """Waits for the kubelet to stop the sandboxes; what is left is killed and removed."""
    deadline = time.monotonic() + 30
    while _tasks(ctr) and time.monotonic() < deadline:
        time.sleep(1)
    for task in _tasks(ctr):
        subprocess.run([*ctr, "-n", "k8s.io", "tasks", "kill", "-a", "-s", "SIGKILL", task], capture_output=True)
        subprocess.run([*ctr, "-n", "k8s.io", "tasks", "rm", "-f", task], capture_output=True)


def _leave_the_host_as_found(bin_dir: pathlib.Path, folder: pathlib.Path, forwarding: str, started: float) -> None:
    quiet: dict[str, Any] = {"capture_output": True}
    for cmdline in pathlib.Path("/proc").glob("[0-9]*/cmdline"):  # the shims, which outlive containerd
        with contextlib.suppress(OSError, ProcessLookupError):
            if str(folder).encode() in cmdline.read_bytes():
                os.kill(int(cmdline.parent.name), 9)
    for netns in pathlib.Path("/var/run/netns").glob("cni-*"):  # the sandboxes' (ours: made since it started)
        with contextlib.suppress(OSError):
            if netns.stat().st_mtime >= started:
                subprocess.run(["ip", "netns", "delete", netns.name], **quiet)
    subprocess.run([str(bin_dir / "kube-proxy"), "--cleanup"], **quiet)
    for tool in ("iptables", "ip6tables"):
        for table, chains in KUBELET_CHAINS.items():
            for chain in chains:
                for builtin in ("INPUT", "OUTPUT", "FORWARD", "PREROUTING", "POSTROUTING"):
                    while subprocess.run([tool, "-t", table, "-D", builtin, "-j", chain], **quiet).returncode == 0:
                        pass
                subprocess.run([tool, "-t", table, "-F", chain], **quiet)
                subprocess.run([tool, "-t", table, "-X", chain], **quiet)
    mounts = [line.split()[1] for line in pathlib.Path("/proc/mounts").read_text().splitlines() if str(folder) in line]
    for mount in sorted(mounts, key=len, reverse=True):
        subprocess.run(["umount", "-l", mount], **quiet)
    subprocess.run(["ip", "link", "delete", BRIDGE], **quiet)
    FORWARDING.write_text(forwarding)
