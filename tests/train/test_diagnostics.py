"""Diagnostics: each failure mode is reported at the step it first appears, with a fix."""

import math
import re
import time
import warnings

import numpy as np
import pytest

import palaestra as gym
from palaestra import spaces
from palaestra.train.diagnostics import (
    DiagnosticsError,
    DiagnosticsWarning,
    DiagnosticsWrapper,
    StepTimeoutError,
    TrainingMonitor,
    VectorDiagnosticsWrapper,
    find_problem,
)


class FaultyEnv(gym.Env):
    """Counts steps; from step ``bad_step`` on it emits ``bad_obs``/``bad_reward``."""

    metadata = {"render_modes": []}

    def __init__(self, bad_step=3, bad_obs=None, bad_reward=None, sleep=0.0):
        self.observation_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.bad_step, self.bad_obs, self.bad_reward, self.sleep = (
            bad_step,
            bad_obs,
            bad_reward,
            sleep,
        )

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, action):
        self.t += 1
        time.sleep(self.sleep)
        obs, reward = np.zeros(2, np.float32), 1.0
        if self.t >= self.bad_step:
            if self.bad_obs is not None:
                obs = np.array(self.bad_obs, np.float32)
            if self.bad_reward is not None:
                reward = self.bad_reward
        return obs, reward, False, self.t >= 10, {}


def play(env, steps):
    env.reset(seed=0)
    for _ in range(steps):
        env.step(0)


def test_nan_observation_is_reported_at_its_step():
    env = DiagnosticsWrapper(FaultyEnv(bad_step=3, bad_obs=[np.nan, 0.0]))
    with pytest.raises(DiagnosticsError) as caught:
        play(env, 5)
    message = str(caught.value)
    assert message.startswith("non-finite observation at step 3: array([nan,  0.], dtype=float32)")
    assert "Likely fix:" in message
    assert env.num_steps == 3


def test_out_of_space_observation_names_the_space():
    env = DiagnosticsWrapper(FaultyEnv(bad_step=2, bad_obs=[5.0, 0.0]))
    with pytest.raises(
        DiagnosticsError, match=r"observation out of space at step 2: .* is not in Box"
    ):
        play(env, 5)


def test_out_of_bounds_action_is_reported_before_the_env_steps():
    env = DiagnosticsWrapper(gym.make("Pendulum-v1"))
    env.reset(seed=0)
    env.step(np.array([1.0], np.float32))
    with pytest.raises(DiagnosticsError) as caught:
        env.step(np.array([3.5], np.float32))
    assert str(caught.value).startswith(
        "action out of space at step 2: array([3.5], dtype=float32) is not in "
        "Box(-2.0, 2.0, (1,), float32)."
    )
    assert "clip or squash the policy output" in str(caught.value)


def test_nan_action_is_reported_as_non_finite():
    env = DiagnosticsWrapper(gym.make("Pendulum-v1"))
    env.reset(seed=0)
    with pytest.raises(DiagnosticsError, match="non-finite action at step 1"):
        env.step(np.array([np.nan], np.float32))


def test_non_finite_reward_is_reported():
    env = DiagnosticsWrapper(FaultyEnv(bad_step=4, bad_reward=math.inf))
    with pytest.raises(DiagnosticsError, match=r"non-finite reward at step 4: inf\."):
        play(env, 6)


def test_warn_mode_warns_once_per_kind_and_keeps_going():
    env = DiagnosticsWrapper(FaultyEnv(bad_step=2, bad_obs=[np.nan, 0.0]), on_problem="warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        play(env, 6)
    problems = [w for w in caught if issubclass(w.category, DiagnosticsWarning)]
    assert len(problems) == 1
    assert "non-finite observation at step 2" in str(problems[0].message)


def test_vector_wrapper_names_the_sub_env():
    def make(index):
        return lambda: FaultyEnv(bad_step=3 if index == 1 else 99, bad_obs=[np.nan, 0.0])

    envs = DiagnosticsWrapper(gym.vector.SyncVectorEnv([make(0), make(1), make(2)]))
    assert isinstance(envs, VectorDiagnosticsWrapper)
    envs.reset(seed=0)
    envs.step(np.zeros(3, np.int64))
    envs.step(np.zeros(3, np.int64))
    with pytest.raises(DiagnosticsError, match="non-finite observation at step 3 in sub-env 1"):
        envs.step(np.zeros(3, np.int64))


def test_vector_non_finite_reward_is_shown_as_a_plain_number():
    # The batched rewards are numpy scalars, which numpy 2 would write as np.float64(inf).
    def make(index):
        return lambda: FaultyEnv(bad_step=1, bad_reward=math.inf if index == 1 else None)

    envs = DiagnosticsWrapper(gym.vector.SyncVectorEnv([make(0), make(1)]))
    envs.reset(seed=0)
    with pytest.raises(DiagnosticsError, match=r"at step 1 in sub-env 1: inf\.\n"):
        envs.step(np.zeros(2, np.int64))


def test_a_scalar_observation_is_shown_as_a_plain_number():
    assert find_problem(np.float64(np.inf), None, "observation") == (
        "non-finite observation: inf contains NaN or inf"
    )


def test_vector_out_of_bound_action_names_the_sub_env():
    envs = DiagnosticsWrapper(gym.make_vec("Pendulum-v1", num_envs=3))
    envs.reset(seed=0)
    with pytest.raises(DiagnosticsError, match=r"action out of space at step 1 in sub-env 2"):
        envs.step(np.array([[0.0], [1.0], [-7.0]], np.float32))


def test_clean_vector_env_passes_silently():
    envs = DiagnosticsWrapper(gym.make_vec("CartPole-v1", num_envs=4))
    envs.reset(seed=0)
    for _ in range(50):
        envs.step(envs.action_space.sample())
    assert envs.num_steps == 50


def test_hung_step_raises_after_the_timeout():
    env = DiagnosticsWrapper(FaultyEnv(sleep=5.0), step_timeout=0.2)
    env.reset(seed=0)
    started = time.perf_counter()
    with pytest.raises(
        StepTimeoutError, match=r"env step 1 did not return within step_timeout=0.2 s"
    ):
        env.step(0)
    assert time.perf_counter() - started < 2.0


def test_exceptions_inside_a_timed_step_reach_the_caller():
    env = DiagnosticsWrapper(gym.make("CartPole-v1"), step_timeout=5.0)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def test_unknown_on_problem_is_rejected():
    with pytest.raises(ValueError, match="on_problem must be one of"):
        DiagnosticsWrapper(gym.make("CartPole-v1"), on_problem="ignore")


class RecordingMonitor(TrainingMonitor):
    """Records every update's loss and gradient norm instead of judging them."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def check_update(self, loss, grad_norm, step):
        self.num_updates += 1
        self.seen.append((float(loss), float(grad_norm), step))


def huge_learning_rate_config():
    pytest.importorskip("torch")
    from palaestra.train.ppo import PPOConfig

    return PPOConfig(
        num_envs=2,
        n_steps=16,
        batch_size=16,
        n_epochs=2,
        learning_rate=1e4,
        seed=0,
        max_grad_norm=1e9,
        check_finite=False,  # the monitor under test reports the problem
    )


def test_huge_learning_rate_is_caught_at_the_first_bad_update():
    config = huge_learning_rate_config()
    from palaestra.train.ppo import PPO

    with pytest.raises(DiagnosticsError) as caught:
        PPO("MlpPolicy", "CartPole-v1", config=config, monitor=TrainingMonitor()).learn(2048)
    headline = str(caught.value).splitlines()[0]
    found = re.match(
        r"(NaN loss|exploding gradient norm) at update (\d+) \(env step (\d+)\)", headline
    )
    assert found, headline

    recorder = RecordingMonitor()
    PPO("MlpPolicy", "CartPole-v1", config=huge_learning_rate_config(), monitor=recorder).learn(
        2048
    )
    first_bad = next(
        index
        for index, (loss, norm, _) in enumerate(recorder.seen, start=1)
        if not math.isfinite(loss) or not math.isfinite(norm) or norm > 1e4
    )
    assert int(found.group(2)) == first_bad
    assert int(found.group(3)) == recorder.seen[first_bad - 1][2]
    assert "lower the learning rate" in str(caught.value)


def test_monitor_reports_nan_loss():
    monitor = TrainingMonitor()
    monitor.check_update(1.0, 1.0, step=10)
    with pytest.raises(DiagnosticsError, match=r"NaN loss at update 2 \(env step 20\): nan\."):
        monitor.check_update(math.nan, 1.0, step=20)


def test_monitor_reports_exploding_gradient_norm():
    monitor = TrainingMonitor(max_grad_norm=100.0)
    with pytest.raises(DiagnosticsError, match=r"exploding gradient norm at update 1 .*: 1e\+05"):
        monitor.check_update(1.0, 1e5, step=5)


def test_ppo_diagnostics_option_checks_the_sub_envs():
    pytest.importorskip("torch")
    from palaestra.train.ppo import PPO, PPOConfig

    config = PPOConfig(num_envs=2, n_steps=8, batch_size=16, n_epochs=1, diagnostics=True)
    agent = PPO("MlpPolicy", "CartPole-v1", config=config)
    assert isinstance(agent.monitor, TrainingMonitor)
    wrapper = agent.env
    while not isinstance(wrapper, VectorDiagnosticsWrapper):
        wrapper = wrapper.env
    agent.learn(16)
    assert wrapper.num_steps == 8
