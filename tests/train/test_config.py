"""The shared hyper-parameters are validated once, in CommonConfig, for every algorithm."""

import math
import re

import pytest

pytest.importorskip("torch")

from palaestra.train.core.config import CommonConfig
from palaestra.train.dqn import DQNConfig
from palaestra.train.ppo import PPOConfig
from palaestra.train.sac import SACConfig

CONFIGS = [PPOConfig, DQNConfig, SACConfig]


@pytest.mark.parametrize("config", CONFIGS)
def test_every_config_extends_the_common_one(config):
    assert issubclass(config, CommonConfig)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("num_envs", 0, "num_envs must be a positive int, got 0"),
        ("batch_size", True, "batch_size must be a positive int, got True"),
        ("torch_threads", 0, "torch_threads must be a positive int, got 0"),
        ("gamma", 1.5, "gamma must be in [0, 1], got 1.5"),
        ("hidden_sizes", (8, -1), "hidden_sizes must be positive ints, got (8, -1)"),
        ("step_timeout", 0.0, "step_timeout must be a positive number of seconds or None"),
    ],
)
def test_a_bad_shared_field_names_the_config_the_field_and_the_value(config, field, value, message):
    with pytest.raises(ValueError, match=f"^{re.escape(f'{config.__name__}.{message}')}"):
        config(**{field: value})


@pytest.mark.parametrize("config", CONFIGS)
def test_a_non_positive_learning_rate_is_refused(config):
    with pytest.raises(ValueError, match=r"learning_rate must be positive, got -0\.1"):
        config(learning_rate=-0.1)


@pytest.mark.parametrize("config", [PPOConfig, DQNConfig])
def test_max_grad_norm_is_a_positive_number_or_infinity(config):
    assert config(max_grad_norm=math.inf).max_grad_norm == math.inf
    with pytest.raises(ValueError, match=rf"{config.__name__}\.max_grad_norm must be a positive"):
        config(max_grad_norm=0.0)


def test_hidden_sizes_become_a_tuple():
    assert DQNConfig(hidden_sizes=[8, 8]).hidden_sizes == (8, 8)


@pytest.mark.parametrize(
    ("config", "field"),
    [(PPOConfig, "n_epochs"), (DQNConfig, "train_freq"), (SACConfig, "gradient_steps")],
)
def test_an_algorithms_own_positive_ints_are_checked_by_the_common_rule(config, field):
    with pytest.raises(ValueError, match=rf"{config.__name__}\.{field} must be a positive int"):
        config(**{field: 0})
