"""Run the command line as ``python -m palaestra.cli``."""

import sys

from palaestra.cli import main

sys.exit(main())
