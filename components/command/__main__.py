"""``python -m components.command``: the main command (``connectors`` once the library is installed)."""

import sys

from components.command.main import main

sys.exit(main())
