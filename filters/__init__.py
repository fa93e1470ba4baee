"""Quality filters: small pure predicates returning ``(keep, reason)``, with threshold configs."""

from codemix import refuse_bare_name

refuse_bare_name(__name__)
