"""How the main command drives the Pulumi engine: the CLI, the inline workspace, the backend, the SDK's inline server.
Imports the library's public names and the command's run options."""
