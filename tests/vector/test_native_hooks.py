"""The native base's optional hooks: streams, publishing, infos, the compiled step's install."""

from __future__ import annotations

import numpy as np
import pytest

from palaestra import Env, spaces
from palaestra.vector.native import NativeVectorEnv, numba_available


class Counter(Env):
    observation_space = spaces.Box(0.0, 100.0, (1,))
    action_space = spaces.Discrete(2)


class CounterVectorEnv(NativeVectorEnv):
    single_env_class = Counter

    def draw_initial_states(self, rows, count, options):
        return np.zeros((count, 1))

    def observe(self, states):
        return states.astype(np.float32)

    def advance(self, states, actions, rows, fresh):
        if self.compiled_advance is not None:
            return self.compiled_advance(states, actions)
        states = states + actions[:, None]
        return states, np.ones(len(states)), states[:, 0] >= 2.0


class PublishingCounter(CounterVectorEnv):
    """Publishes observations as lists, rows as floats, and counts its infos calls."""

    def publish(self, observations):
        return observations[:, 0].tolist()

    def publish_row(self, observation):
        return float(observation[0])

    def finish_infos(self, infos):
        return {**infos, "published": True}


def test_reset_and_step_hand_their_results_to_publish_and_finish_infos():
    envs = PublishingCounter(2, autoreset_mode="SameStep")
    assert envs.reset(seed=0) == ([0.0, 0.0], {"published": True})
    observations, _, _, _, infos = envs.step(np.array([1, 0]))
    assert observations == [1.0, 0.0] and infos == {"published": True}


def test_same_step_final_observations_are_published_rows():
    envs = PublishingCounter(2, autoreset_mode="SameStep")
    envs.reset(seed=0)
    envs.step(np.array([1, 0]))
    infos = envs.step(np.array([1, 0]))[4]
    assert infos["final_obs"].tolist() == [2.0, None]


def test_without_the_hooks_the_base_returns_its_arrays():
    envs = CounterVectorEnv(2)
    observations, infos = envs.reset(seed=0)
    assert isinstance(observations, np.ndarray) and infos == {}


def test_make_generators_chooses_the_streams():
    class OwnStreams(CounterVectorEnv):
        def make_generators(self):
            streams = super().make_generators()
            streams.chosen_by_hook = True
            return streams

    assert OwnStreams(2).generators.chosen_by_hook


def test_compiled_advance_is_none_on_numpy():
    assert CounterVectorEnv(2, accelerator="numpy").compiled_advance is None


@pytest.mark.skipif(not numba_available(), reason="needs numba")
def test_the_compiled_step_is_installed_at_the_first_reset_on_numba():
    import numba

    @numba.njit
    def compiled(states, actions):
        following = states + actions.reshape(-1, 1)
        return following, np.full(len(states), 2.0), following[:, 0] >= 2.0

    class Compiled(CounterVectorEnv):
        def compile_advance(self):
            return compiled

    envs = Compiled(2, accelerator="numba")
    assert envs.compiled_advance is None
    envs.reset(seed=0)
    assert envs.compiled_advance is compiled
    assert envs.step(np.array([1, 1]))[1].tolist() == [2.0, 2.0]
