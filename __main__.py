"""Deploys the connectors listed in the stack config (see README.md)."""

from components.app.program import connectors_program

connectors_program()
