import sys

from codemix.cli import main

sys.exit(main())
