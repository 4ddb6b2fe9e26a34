"""A folder for ``PYTHONPATH``: its ``sitecustomize`` installs ``as_gymnasium`` at start-up."""
