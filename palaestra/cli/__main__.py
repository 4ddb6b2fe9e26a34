"""Run the command line as ``python -m palaestra.cli``."""

import sys

from palaestra.cli import main

if __name__ == "__main__":
    sys.exit(main())
