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
    # ---- vector envs ----
    "vector/sync_vector_env.py:336": "autoreset_mode is made an AutoresetMode at construction "
    "(a bad value fails there); only overwriting the attribute afterwards reaches this.",
    "vector/async_vector_env.py:908": "the worker's autoreset_mode comes from the constructor, "
    "which already made it an AutoresetMode.",
    "vector/async_vector_env.py:962": "the worker's command protocol: the parent only sends "
    "the commands it knows.",
    # ---- wrappers ----
    "wrappers/vector/dict_info_to_list.py:123": "a nested info dict converts to a list of "
    "exactly num_envs dicts, so its length check cannot fail.",
}

# Sites that fire inside AsyncVectorEnv's worker processes, where the tracer does not follow;
# each names the case that reaches it (its error comes back through the parent, which is
# compared as usual).
REACHED_IN_WORKERS: dict[str, str] = {
    "vector/async_vector_env.py:930": "async_call_of_reset",
}
