"""The Atari 2600 games of the Arcade Learning Environment (the ``atari`` extra: ale-py).

Importing this package does not import ``ale_py``; making an env does.

Example:
    >>> from palaestra.envs.atari import AtariEnv
    >>> AtariEnv("breakout").action_space
    Discrete(4)
"""

from palaestra.envs.atari.atari_env import AtariEnv

__all__ = ["AtariEnv"]
