"""What a user writes: the argument models (pydantic v2), their field types, the Kubernetes
schema checks and the field-path messages; it imports only the registration package's rules."""
