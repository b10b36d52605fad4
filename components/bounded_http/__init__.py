"""A bounded HTTP client: where requests go, one deadline across every wait, retries, bounded answers.
Imports nothing else of ``components``, nor loads pydantic or pulumi."""
