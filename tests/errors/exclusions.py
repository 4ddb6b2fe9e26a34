"""Gymnasium raise/warn sites no case reaches, each with the reason it cannot be reached.

Keys are ``"path:line"`` in the installed gymnasium 1.4.0 package (see ``tests.errors.sites``).
"""

EXCLUDED: dict[str, str] = {
    # ---- spaces ----
    "spaces/utils.py:164": "flatdim's Graph branch: flatdim rejects every Graph (not "
    "numpy-flattenable) before dispatching to it.",
}
