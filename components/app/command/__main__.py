"""``python -m components.app.command``: the main command (``connectors`` once the library is installed)."""

import sys

from components.app.command.main import main

sys.exit(main())
