"""Registers the toy-text environments (imported by :mod:`palaestra.envs`)."""

from palaestra.envs.registration import register

_TOY = "palaestra.envs.toy_text"

register(
    id="Blackjack-v1",
    entry_point=f"{_TOY}.blackjack:BlackjackEnv",
    vector_entry_point=f"{_TOY}.vector:BlackjackVectorEnv",
    kwargs={"sab": True, "natural": False},
)
register(
    id="FrozenLake-v1",
    entry_point=f"{_TOY}.frozen_lake:FrozenLakeEnv",
    vector_entry_point=f"{_TOY}.vector:FrozenLakeVectorEnv",
    kwargs={"map_name": "4x4"},
    max_episode_steps=100,
    reward_threshold=0.70,
)
register(
    id="FrozenLake8x8-v1",
    entry_point=f"{_TOY}.frozen_lake:FrozenLakeEnv",
    vector_entry_point=f"{_TOY}.vector:FrozenLakeVectorEnv",
    kwargs={"map_name": "8x8"},
    max_episode_steps=200,
    reward_threshold=0.85,
)
register(
    id="CliffWalking-v1",
    entry_point=f"{_TOY}.cliffwalking:CliffWalkingEnv",
    vector_entry_point=f"{_TOY}.vector:CliffWalkingVectorEnv",
)
register(
    id="CliffWalkingSlippery-v1",
    entry_point=f"{_TOY}.cliffwalking:CliffWalkingEnv",
    vector_entry_point=f"{_TOY}.vector:CliffWalkingVectorEnv",
    kwargs={"is_slippery": True},
)
register(
    id="Taxi-v4",
    entry_point=f"{_TOY}.taxi:TaxiEnv",
    vector_entry_point=f"{_TOY}.vector:TaxiVectorEnv",
    reward_threshold=8,
    max_episode_steps=200,
)
