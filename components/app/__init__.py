"""The application: the Pulumi program, its stack settings, status's health probe, the main command.
Imports the library's public modules; nothing of the library imports it."""
