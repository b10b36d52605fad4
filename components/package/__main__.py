"""Serve the component package: ``python -m components.package`` (the executable plugin), or
``python components/package`` (``PulumiPlugin.yaml``'s Python runtime runs the folder, in the
package's own virtualenv, where ``requirements.txt`` installs this checkout: ``-e ../..``)."""

from components.package.package_provider import main

main()
