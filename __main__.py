"""Deploys the connectors listed in the stack config (see README.md)."""

from components.program import connectors_program

connectors_program()
