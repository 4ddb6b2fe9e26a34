"""Run by Python at start-up in processes that ``palaestra.compat.as_gymnasium()`` started.

Installs the same ``gymnasium`` -> palaestra alias as the parent's (when
``PALAESTRA_AS_GYMNASIUM=1``), then runs the ``sitecustomize`` this one shadows, if any.
Imported under any other name (``palaestra.compat._site.sitecustomize``, by a tool that walks
the package) it does nothing.
"""

import os

if __name__ == "sitecustomize":
    from palaestra.compat._alias import install_in_this_process, run_other_sitecustomize

    if os.environ.get("PALAESTRA_AS_GYMNASIUM") == "1":
        install_in_this_process()
    run_other_sitecustomize()
