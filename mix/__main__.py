import sys

from mix.cli import main

sys.exit(main())
