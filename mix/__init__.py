"""The `mix` command line: the only module that imports every layer of codemix."""

from codemix import refuse_bare_name

refuse_bare_name(__name__)
