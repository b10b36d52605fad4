"""Serve the component package: ``python -m components.package`` (the executable plugin), or
``python components/package`` (``PulumiPlugin.yaml``'s Python runtime runs the folder)."""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from components.package.package_provider import main  # noqa: E402

main()
