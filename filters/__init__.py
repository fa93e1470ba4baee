"""Quality filters: small pure predicates returning ``(keep, reason)``, with threshold configs."""
