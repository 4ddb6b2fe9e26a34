"""Gymnasium raise/warn sites no case reaches, each with the reason it cannot be reached.

Keys are ``"path:line"`` in the installed gymnasium 1.4.0 package (see ``tests.errors.sites``).
"""

EXCLUDED: dict[str, str] = {
    # ---- spaces ----
    "spaces/utils.py:51": "_flat_dtype's generic branch: every built-in space has its own "
    "registration, and a custom space fails flatdim/flatten_space before reaching it.",
    "spaces/multi_discrete.py:203": "nvec entries are numpy integers after construction, so "
    "the sub_nvec check cannot fail.",
    "spaces/multi_discrete.py:247": "_apply_mask is only called with 'mask' or 'probability'.",
    # ---- registration ----
    "envs/registration.py:672": "formatting the warning calls EnvSpec.__repr__, which reads "
    "the missing `additional_wrappers` and raises AttributeError before the warning is issued.",
    "envs/registration.py:967": "every VectorizeMode value has a branch of its own before it.",
}
