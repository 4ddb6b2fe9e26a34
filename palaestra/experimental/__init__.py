"""Experimental APIs, as Gymnasium's ``gymnasium.experimental``: the functional env API.

Example:
    >>> from palaestra.experimental import functional
    >>> functional.FuncEnv.__name__
    'FuncEnv'
"""

from palaestra.experimental import functional

__all__ = ["functional"]
