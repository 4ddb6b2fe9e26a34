"""The benchmarks count the right operations and stop after their target duration."""

import time

import pytest

import palaestra
from palaestra.utils.performance import (
    benchmark_init,
    benchmark_render,
    benchmark_step,
    benchmark_vector_step,
)
from tests.fixtures.counting_env import counting_env_class, make_counting_env

DURATION = 0.05


class StepCounter(counting_env_class(palaestra)):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.steps = 0
        self.renders = 0

    def step(self, action):
        self.steps += 1
        return super().step(action)

    def render(self):
        self.renders += 1
        return super().render()


def test_benchmark_step_runs_for_about_the_target_duration_and_returns_steps_per_second():
    env = StepCounter(terminate_at=3)
    start = time.perf_counter()
    rate = benchmark_step(env, target_duration=DURATION, seed=0)
    elapsed = time.perf_counter() - start
    assert DURATION <= elapsed < DURATION + 1.0
    assert rate == pytest.approx(env.steps / elapsed, rel=0.5)


def test_benchmark_step_resets_ended_episodes():
    env = StepCounter(terminate_at=3)
    benchmark_step(env, target_duration=DURATION, seed=0)
    # The first reset, then one after each 3-step episode.
    assert env.resets == 1 + env.steps // 3


def test_benchmark_render_counts_renders():
    env = StepCounter(render_mode="ansi")
    env.reset()
    start = time.perf_counter()
    rate = benchmark_render(env, target_duration=DURATION)
    elapsed = time.perf_counter() - start
    assert DURATION <= elapsed < DURATION + 1.0
    assert rate == pytest.approx(env.renders / elapsed, rel=0.5)


def test_benchmark_init_builds_and_resets_a_new_env_each_time():
    built = []

    def build():
        built.append(make_counting_env(palaestra))
        return built[-1]

    start = time.perf_counter()
    rate = benchmark_init(build, target_duration=DURATION, seed=1)
    elapsed = time.perf_counter() - start
    assert rate == pytest.approx(len(built) / elapsed, rel=0.5)
    assert all(env.resets == 1 for env in built)


def test_benchmark_vector_step_returns_sub_env_steps_per_second():
    sub_envs = [StepCounter(terminate_at=3), StepCounter(terminate_at=5)]
    envs = palaestra.vector.SyncVectorEnv([lambda env=env: env for env in sub_envs])
    start = time.perf_counter()
    rate = benchmark_vector_step(envs, target_duration=DURATION, seed=0)
    elapsed = time.perf_counter() - start
    # Reset steps of next-step autoreset call reset, not step: only real steps are counted.
    assert rate == pytest.approx(sum(env.steps for env in sub_envs) / elapsed, rel=0.5)


@pytest.fixture
def ticking_clock(monkeypatch):
    """Make ``time.time`` advance by exactly 1 ms per call (shared by both libraries)."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "time", lambda: next(ticks) / 1000)


@pytest.mark.parametrize(
    "run",
    [
        lambda gym, perf: perf.benchmark_step(gym.make("CartPole-v1"), 0.05, seed=0),
        lambda gym, perf: perf.benchmark_init(lambda: gym.make("CartPole-v1"), 0.05, seed=0),
        lambda gym, perf: perf.benchmark_render(
            _reset(gym.make("CartPole-v1", render_mode="rgb_array")), 0.05
        ),
        lambda gym, perf: perf.benchmark_vector_step(
            gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync"), 0.05, seed=0
        ),
    ],
    ids=["step", "init", "render", "vector_step"],
)
def test_a_patched_clock_gives_the_same_numbers_as_gymnasium(ticking_clock, run):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils import performance as gymnasium_performance

    from palaestra.utils import performance

    theirs = run(gymnasium, gymnasium_performance)
    ours = run(palaestra, performance)
    assert ours == theirs


def _reset(env):
    env.reset(seed=0)
    return env


def _counted_cartpole(gym):
    """CartPole with its action space seeded, counting its resets and steps."""

    class Counted(gym.Wrapper):
        resets = steps = 0

        def reset(self, **kwargs):
            self.resets += 1
            return super().reset(**kwargs)

        def step(self, action):
            self.steps += 1
            return super().step(action)

    env = Counted(gym.make("CartPole-v1"))
    env.action_space.seed(3)
    return env


def test_benchmark_step_resets_and_draws_actions_as_gymnasium_does(ticking_clock):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils import performance as gymnasium_performance

    envs = []
    for gym, benchmark in (
        (gymnasium, gymnasium_performance.benchmark_step),
        (palaestra, benchmark_step),
    ):
        envs.append(_counted_cartpole(gym))
        benchmark(envs[-1], target_duration=0.4, seed=0)
    theirs, ours = envs
    assert (ours.resets, ours.steps) == (theirs.resets, theirs.steps)
    assert ours.resets > 3
