"""Run by Python at start-up in processes that ``palaestra.compat.as_gymnasium()`` started.

Installs the same ``gymnasium`` -> palaestra alias as the parent's (when
``PALAESTRA_AS_GYMNASIUM=1``), then runs the ``sitecustomize`` this one shadows, if any.
"""

import os

if os.environ.get("PALAESTRA_AS_GYMNASIUM") == "1":
    from palaestra.compat._alias import install_in_this_process

    install_in_this_process()

from palaestra.compat._alias import run_other_sitecustomize

run_other_sitecustomize()
