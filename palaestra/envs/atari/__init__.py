"""The Atari 2600 games of the Arcade Learning Environment (the ``atari`` extra: ale-py).

Importing this package does not import ``ale_py``; making an env does.
:class:`AtariEnv` is one game (``make("ALE/Pong-v5")``), :class:`AtariVectorEnv` the
batched, preprocessed one (``make_vec("ALE/Pong-v5", n)``) and
:class:`AtariVectorPreprocessing` its preprocessing on one env.

Example:
    >>> from palaestra.envs.atari import AtariEnv
    >>> AtariEnv("breakout").action_space
    Discrete(4)
"""

from palaestra.envs.atari.atari_env import AtariEnv
from palaestra.envs.atari.preprocessing import AtariVectorPreprocessing, preprocessed_atari_env
from palaestra.envs.atari.vector import AtariVectorEnv

__all__ = ["AtariEnv", "AtariVectorEnv", "AtariVectorPreprocessing", "preprocessed_atari_env"]
