"""The main command: the library's program run on stacks through the real Pulumi engine
(``python -m components.app.command``, or ``connectors`` once the library is installed)."""
