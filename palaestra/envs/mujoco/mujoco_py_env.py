"""Kept for Gymnasium's module path: the mujoco-py base class moved to gymnasium-robotics.

The mujoco-py based v2/v3 ids are registered and raise Gymnasium's ``ImportError`` on
``make`` (see :mod:`palaestra.envs._stub_ids`); this module, like Gymnasium's, is empty.

Example:
    >>> import palaestra.envs.mujoco.mujoco_py_env as module
    >>> [name for name in vars(module) if not name.startswith("_")]
    []
"""
