"""Run the command line as ``python -m palaestra``."""

import sys

from palaestra.cli import main

sys.exit(main())
