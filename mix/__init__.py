"""The `mix` command line: the only module that imports every layer of codemix."""
