"""Servers standing in for Pods: a network namespace of the test's own, joined to the host by a
veth pair, holding the addresses kwok gave the Pods, a server listening on each; the API
server's service proxy reaches them as it would reach the Pods. Removed at the end."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

POD_GATEWAY = "10.244.0.254"
"""The host's end of the veth pair, in kwok's Pod range."""


@contextmanager
def servers_in_a_network_namespace(servers: dict[str, list[str]], port: int = 8080) -> Iterator[None]:
    """Each command of ``servers`` (by the Pod address it serves, on ``port``) run in the namespace."""
    if shutil.which("ip") is None or os.geteuid() != 0:
        pytest.skip("needs root and iproute2 to make a network namespace")
    tag = uuid.uuid4().hex[:6]
    netns, host_end, ns_end = f"pods-{tag}", f"vh{tag}", f"vn{tag}"

    def ip(*args: str) -> None:
        subprocess.run(["ip", *args], check=True, capture_output=True)

    processes: list[subprocess.Popen[bytes]] = []
    ip("netns", "add", netns)
    try:
        ip("link", "add", host_end, "type", "veth", "peer", "name", ns_end)
        ip("link", "set", ns_end, "netns", netns)
        ip("addr", "add", f"{POD_GATEWAY}/24", "dev", host_end)
        ip("link", "set", host_end, "up")
        for address in servers:
            ip("netns", "exec", netns, "ip", "addr", "add", f"{address}/24", "dev", ns_end)
        ip("netns", "exec", netns, "ip", "link", "set", ns_end, "up")
        ip("netns", "exec", netns, "ip", "link", "set", "lo", "up")
        for command in servers.values():
            processes.append(subprocess.Popen(["ip", "netns", "exec", netns, *command]))
        for _ in range(50):
            listening = subprocess.run(["ip", "netns", "exec", netns, "ss", "-ltn"], capture_output=True, text=True).stdout
            if all(f"{address}:{port}" in listening for address in servers):
                break
            time.sleep(0.1)
        yield
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
        subprocess.run(["ip", "link", "del", host_end], capture_output=True)
        subprocess.run(["ip", "netns", "del", netns], capture_output=True)
