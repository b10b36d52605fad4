"""Benchmarks: the component against a hand-written program of the same objects, through the
real engine (Automation API inline, render mode, a ``file://`` backend in a temporary folder).

    python -m scripts.bench [--sizes 10 100 300] [--rounds 1] [--out bench-results]
    python -m scripts.bench --split 200 --split-stacks 8 --parallel 4 [--out bench-results]

For each size n, three variants run interleaved in the same process: the hand-written program,
the same program with each connector's objects under a bare component (a ``ComponentResource``
subclass: what one component per connector costs in Pulumi itself), and the component, the
process tuned as ``connectors`` tunes its own (``common.run_as_deployed``: all three alike). Each
runs preview (as ``connectors preview`` runs it, without checkpoints), first up, no-op up. Prints a table (seconds,
the component / hand-written ratio, bare component / hand-written, component / bare component,
seconds per connector) and writes ``<out>/bench.json`` and, when matplotlib is installed,
``<out>/bench.png`` (seconds against n, one line per variant and operation). Never part of
``make test``; no test asserts a time. (P1 and growth of issue #14.)

``--registrations``: P2, a no-op rerun of 100 connectors with registrations (changes and
platform requests, which must both be 0), and P3, 50 connectors registering against the
platform stand-in answering after 1 s each: exactly 50 requests, the registration phase's wall
time against the serial sum, and how many requests were in flight at once. Writes
``<out>/registrations.json``.

``--ready-latency``: P4, on the local cluster (``scripts/install-cluster-tools``): 10 connectors
registering; for each, the time from when a watch on its Deployment first sees it Available to
the registration request reaching the platform stand-in (median and max), and a timeline per
connector (Available, the engine's Deployment step done, the request). Writes
``<out>/ready-latency.json``.

``--split N``: one stack of N connectors against the same N as ``--split-stacks`` stacks run by
the fleet command (``connectors <op> --stacks 'split-*' --parallel P``), side by side in one
run, through the main command for both (the same process start-up on each side): preview
and up, the ratio fleet / single, each side's CPU time, and the floor: the single stack's CPU
time spread over every core, against its wall time (a split can beat it only by doing less work
in all, as ``up`` does: its checkpoints cost the square of a stack's size). State in
``PULUMI_BACKEND_URL`` when set (e.g. the team's PostgreSQL), else a ``file://`` folder.
Writes ``<out>/split.json``.

``--platform N``: a stack of one platform and N connectors against the same N connectors alone
(render mode), preview, up and no-op up, ``--rounds`` rounds interleaved: the medians, the ratio
with / without and its spread. Writes ``<out>/platform-stack.json``.
"""

from __future__ import annotations

from .common import connectors, registering
from .registrations import most_at_once

__all__ = ["connectors", "most_at_once", "registering"]
