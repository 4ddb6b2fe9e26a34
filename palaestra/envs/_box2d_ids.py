"""Registers the Box2D environments (imported by :mod:`palaestra.envs`).

Making one imports its module, which needs the ``box2d`` extra.
"""

from palaestra.envs.registration import register

_BOX2D = "palaestra.envs.box2d"

register(
    id="LunarLander-v3",
    entry_point=f"{_BOX2D}.lunar_lander:LunarLander",
    max_episode_steps=1000,
    reward_threshold=200,
)
register(
    id="LunarLanderContinuous-v3",
    entry_point=f"{_BOX2D}.lunar_lander:LunarLander",
    kwargs={"continuous": True},
    max_episode_steps=1000,
    reward_threshold=200,
)
register(
    id="BipedalWalker-v3",
    entry_point=f"{_BOX2D}.bipedal_walker:BipedalWalker",
    max_episode_steps=1600,
    reward_threshold=300,
)
register(
    id="BipedalWalkerHardcore-v3",
    entry_point=f"{_BOX2D}.bipedal_walker:BipedalWalker",
    kwargs={"hardcore": True},
    max_episode_steps=2000,
    reward_threshold=300,
)
register(
    id="CarRacing-v3",
    entry_point=f"{_BOX2D}.car_racing:CarRacing",
    max_episode_steps=1000,
    reward_threshold=900,
)
