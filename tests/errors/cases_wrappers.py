"""Misuses of the wrapper modules: renamed wrappers and ``DictInfoToList``'s info checks."""

from __future__ import annotations

import importlib

import numpy as np

from tests.errors.harness import CaseTable

TABLE = CaseTable("wrappers")
case = TABLE.add


def _renamed_case(module: str, name: str):
    def misuse(gym):
        getattr(gym.wrappers.vector if module == "vector" else gym.wrappers, name)

    misuse.__name__ = f"{module}_{name}"
    return misuse


for _module, _name in (
    ("wrappers", "AutoResetWrapper"),
    ("wrappers", "FrameStack"),
    ("wrappers", "PixelObservationWrapper"),
    ("wrappers", "VectorListInfo"),
    ("wrappers", "NoSuchWrapper"),
    ("vector", "VectorListInfo"),
    ("vector", "NoSuchWrapper"),
):
    case(_renamed_case(_module, _name))


def info_stub(gym, info):
    """A two-env vector env whose reset and step return ``info``."""

    class Stub(gym.vector.VectorEnv):
        def __init__(self):
            self.num_envs = 2
            self.single_observation_space = gym.spaces.Discrete(2)
            self.observation_space = gym.spaces.MultiDiscrete([2, 2])
            self.single_action_space = gym.spaces.Discrete(2)
            self.action_space = gym.spaces.MultiDiscrete([2, 2])
            self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

        def reset(self, *, seed=None, options=None):
            return np.zeros(2, np.int64), info

        def step(self, actions):
            return np.zeros(2, np.int64), np.zeros(2), np.zeros(2, bool), np.zeros(2, bool), info

    return Stub()


def _info_case(name, info):
    def misuse(gym):
        gym.wrappers.vector.DictInfoToList(info_stub(gym, info)).reset()

    misuse.__name__ = f"dict_info_to_list_{name}"
    return misuse


for _name, _info in (
    ("value_a_list", {"a": [1, 2]}),
    ("value_wrong_length", {"a": np.zeros(3)}),
    ("mask_wrong_length", {"a": np.zeros(2), "_a": np.ones(3, bool)}),
    ("nested_mask_wrong_length", {"a": {"b": np.zeros(2)}, "_a": np.ones(3, bool)}),
):
    case(_info_case(_name, _info))


@case
def dict_info_to_list_step_info_not_a_dict(gym):
    gym.wrappers.vector.DictInfoToList(info_stub(gym, [])).step(np.zeros(2, np.int64))


@case
def dict_info_to_list_reset_info_not_a_dict(gym):
    gym.wrappers.vector.DictInfoToList(info_stub(gym, [])).reset()


@case
def wrapper_of_a_non_env(gym):
    gym.Wrapper(object())


@case
def create_zero_array_of_a_non_space(gym):
    importlib.import_module(f"{gym.__name__}.wrappers.utils").create_zero_array(3)
