"""A toy algorithm for the registry tests: DQN under another name, with a field of its own."""

import dataclasses

from palaestra.train.dqn import DQN, DQNConfig, dqn_actor


@dataclasses.dataclass
class ToyConfig(DQNConfig):
    """DQN's hyper-parameters and one more.

    Attributes:
        toy_field: a field only this algorithm has.
    """

    toy_field: int = 7


class Toy(DQN):
    """DQN registered as ``"toy"``."""

    algo = "toy"
    config_class = ToyConfig


def toy_actor(state, observation_space, action_space):
    """The greedy actor of a checkpoint."""
    return dqn_actor(state, observation_space, action_space)
