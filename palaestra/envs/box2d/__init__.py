"""The Box2D environments: LunarLander, BipedalWalker and CarRacing (extra ``box2d``).

Importing this package imports the Box2D engine; without it the import raises
:class:`~palaestra.error.DependencyNotInstalled` naming the extra.

Example:
    >>> from palaestra.envs.box2d import LunarLander
    >>> LunarLander().action_space
    Discrete(4)
"""

from palaestra.envs.box2d.bipedal_walker import BipedalWalker, BipedalWalkerHardcore
from palaestra.envs.box2d.car_racing import CarRacing
from palaestra.envs.box2d.lunar_lander import LunarLander, LunarLanderContinuous

__all__ = [
    "BipedalWalker",
    "BipedalWalkerHardcore",
    "CarRacing",
    "LunarLander",
    "LunarLanderContinuous",
]
