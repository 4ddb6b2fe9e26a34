"""``python -m palaestra.compat script.py [args]``: run a Gymnasium program on palaestra.

``import gymnasium`` resolves to palaestra for the whole run, worker processes included
(:func:`palaestra.compat.as_gymnasium`). ``python -m palaestra.compat -m package.module
[args]`` runs a module instead of a file.
"""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Sequence

from palaestra.compat._alias import as_gymnasium

USAGE = "usage: python -m palaestra.compat (SCRIPT.py | -m MODULE) [ARGS ...]"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the script or module ``argv`` names with ``gymnasium`` resolving to palaestra.

    Returns:
        0 after the program ran (its own ``sys.exit`` status propagates), 2 for bad arguments.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help") or args == ["-m"]:
        print(__doc__.strip() + "\n\n" + USAGE, file=sys.stderr if not args else sys.stdout)
        return 0 if args and args[0] in ("-h", "--help") else 2
    as_gymnasium()
    if args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    script = args[0]
    if not os.path.isfile(script):
        print(
            f"python -m palaestra.compat: error: no such file {script!r}\n{USAGE}", file=sys.stderr
        )
        return 2
    sys.argv = args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
