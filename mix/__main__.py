import sys

from codemix.mix.cli import main

sys.exit(main())
