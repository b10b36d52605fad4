"""Run only by ``test_sigterm.py`` in a pytest of its own: holds the cluster until killed.

Not collected by the suite (its name does not start with ``test_``)."""

from __future__ import annotations

import json
import os
import pathlib
import time


def test_hold_the_cluster(cluster):
    pathlib.Path(os.environ["SIGTERM_PROBE_FILE"]).write_text(json.dumps({"pids": cluster.pids, "folder": str(cluster.folder)}))
    time.sleep(300)
