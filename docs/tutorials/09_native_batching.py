"""Your own environment, natively batched: dynamics written once.

palaestra's built-in batched envs (CartPole, MountainCar, toy text...) follow one pattern:
the dynamics are **pure functions** written once, and everything else is a thin adapter
that calls them. This tutorial applies it to a small env of your own, a slider on a track
(state: position and velocity; actions: push left, coast, push right; the episode ends when
the slider leaves the track), and gets four things from the same three functions:

1. the **single env** (`palaestra.Env`), which calls them on Python floats;
2. the **numpy batch** (`palaestra.vector.native.NativeVectorEnv`), which calls them on
   whole columns: you fill in three hooks (`draw_initial_states`, `observe`, `advance`);
   time limits, the three autoreset modes, `reset_mask` and per-sub-env seeding are the base
   class's, with the results of a sync vector env of single envs;
3. the **numba batch**, which compiles the very same functions into a loop over rows
   (`compile_advance`; needs the `fast` extra, `pip install 'palaestra[fast]'`);
4. the **jax functional env** (`palaestra.experimental.functional.FuncEnv`), which calls them
   on jax arrays and can be jitted and vmapped (needs jax).

The functions use only arithmetic, comparisons, `|` and `abs`, which Python floats, numpy
arrays, numba and jax all understand. Random draws stay outside them: the single env draws
from its `np_random`, the batch from one stream per sub-env (`rows.uniform` draws row `i`
exactly as sub-env `i`'s generator would), jax from its key.

`register(..., vector_entry_point=...)` makes the batch what `make_vec` returns, and
`palaestra.vector.contract.check_vector_env` holds it to the vector-env contract (spaces,
seeding, autoreset, `reset_mask`, attributes, bad input, close) and, given a reference,
checks that every trajectory equals the sync vector env's bit for bit.
"""

import functools
from dataclasses import dataclass
from importlib.util import find_spec

import numpy as np

import palaestra as gym
from palaestra import spaces
from palaestra.experimental.functional import FuncEnv
from palaestra.vector.contract import check_vector_env
from palaestra.vector.native import NativeVectorEnv, numba_available

# -- 1. The dynamics, once ---------------------------------------------------------------


@dataclass(frozen=True)
class SliderParams:
    """Every constant of the system (frozen: numba reads it as a named tuple)."""

    force: float = 0.02
    friction: float = 0.1
    limit: float = 1.0


def slider_step(position, velocity, action, params):
    """Push (action 0 left, 1 coast, 2 right), slow down by friction, move."""
    velocity = velocity + (action - 1) * params.force - params.friction * velocity
    return position + velocity, velocity


def slider_terminated(position, params):
    """Whether the slider has left the track."""
    return (position > params.limit) | (position < -params.limit)


def slider_reward(position):
    """Reward staying near the middle."""
    return 1.0 - abs(position)


# -- 2. The single env: the functions on Python floats ------------------------------------


class SliderEnv(gym.Env):
    """A slider on a track of half-length ``limit``; push it to keep it near the middle."""

    metadata = {"render_modes": []}

    def __init__(self, render_mode=None, force=0.02, friction=0.1):
        self.params = SliderParams(force=force, friction=friction)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.action_space = spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        """Start at rest-ish: position and velocity uniform in [-0.5, 0.5)."""
        super().reset(seed=seed)
        self.position, self.velocity = self.np_random.uniform(-0.5, 0.5, size=2).tolist()
        return np.array([self.position, self.velocity], dtype=np.float32), {}

    def step(self, action):
        """One push, through the shared functions."""
        assert self.action_space.contains(action), f"{action!r} invalid: expected 0, 1 or 2"
        self.position, self.velocity = slider_step(
            self.position, self.velocity, int(action), self.params
        )
        terminated = bool(slider_terminated(self.position, self.params))
        observation = np.array([self.position, self.velocity], dtype=np.float32)
        return observation, float(slider_reward(self.position)), terminated, False, {}


# -- 3. The batch: the same functions on columns, and compiled by numba --------------------


class SliderVectorEnv(NativeVectorEnv):
    """``num_envs`` sliders as one ``(num_envs, 2)`` float64 state array."""

    single_env_class = SliderEnv

    def draw_initial_states(self, rows, count, options):
        """Row ``i`` from sub-env ``i``'s stream, as its single env's ``uniform(size=2)``."""
        return rows.uniform(-0.5, 0.5, size=(count, 2))

    def observe(self, states):
        """Return the states as float32 observations."""
        return states.astype(np.float32)

    def advance(self, states, actions, rows, fresh):
        """Step every row: the compiled loop on numba, else the functions on columns."""
        if self.compiled_advance is not None:  # on numba
            return self.compiled_advance(states, actions)
        params = self.single_env.params
        position, velocity = slider_step(states[:, 0], states[:, 1], actions, params)
        terminated = slider_terminated(position, params)
        return np.stack([position, velocity], axis=1), slider_reward(position), terminated

    def compile_advance(self):
        """Return the numba step (``compiled_advance`` holds it once the env is on numba)."""
        return compile_slider(self.single_env.params)


@functools.cache  # one compilation per parameter set, however many envs are made
def compile_slider(params):
    """Compile the batch step: a numba loop over rows calling the very functions above."""
    # Imported here: numba is optional, and only this path needs it.
    from palaestra.vector.native.compiled import as_named_tuple, njit, register_jitable

    for function in (slider_step, slider_terminated, slider_reward):
        register_jitable(function)  # compiled code may now call the function itself
    constants = as_named_tuple(params)

    @njit
    def advance(states, actions):
        count = states.shape[0]
        next_states = np.empty((count, 2))
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            position, velocity = slider_step(states[i, 0], states[i, 1], actions[i], constants)
            next_states[i, 0], next_states[i, 1] = position, velocity
            rewards[i] = slider_reward(position)
            terminations[i] = slider_terminated(position, constants)
        return next_states, rewards, terminations

    return advance


# -- 4. Registered: make and make_vec find both -------------------------------------------

gym.register(
    id="Slider-v0",
    entry_point=SliderEnv,
    vector_entry_point=SliderVectorEnv,
    max_episode_steps=100,
)

envs = gym.make_vec("Slider-v0", num_envs=4)
print(type(envs).__name__, "on", envs.accelerator)  # SliderVectorEnv on numpy
observations, infos = envs.reset(seed=0)
envs.action_space.seed(0)
for _ in range(3):
    observations, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())
print("rewards after three steps:", rewards.round(3))
envs.close()

# -- 5. Checked: the contract, and the same trajectories as a sync vector env --------------

accelerators = ["numpy", "numba"] if numba_available() else ["numpy"]
for accelerator in accelerators:
    check_vector_env(
        lambda accelerator=accelerator: gym.make_vec(
            "Slider-v0", num_envs=3, accelerator=accelerator
        ),
        make_reference=lambda: gym.make_vec("Slider-v0", 3, vectorization_mode="sync"),
        steps=300,
    )
    print(f"{accelerator}: the vector-env contract holds, trajectories equal sync's")

# -- 6. The jax functional env: the same functions on jax arrays --------------------------

if find_spec("jax") is not None:
    import jax
    import jax.numpy as jnp

    from palaestra.envs.functional_jax_env import FunctionalJaxEnv, FunctionalJaxVectorEnv

    class SliderFunctional(FuncEnv):
        """The slider as pure functions of (state, action, key)."""

        observation_space = spaces.Box(-np.inf, np.inf, (2,), np.float32)
        action_space = spaces.Discrete(3)
        params = SliderParams()

        def initial(self, rng, params=None):
            """Draw the initial state from the jax key."""
            return jax.random.uniform(rng, (2,), minval=-0.5, maxval=0.5)

        def transition(self, state, action, rng, params=None):
            """One push, through the shared functions."""
            return jnp.stack(slider_step(state[0], state[1], action, self.params))

        def observation(self, state, rng, params=None):
            """Return the state as a float32 observation."""
            return state.astype(jnp.float32)

        def reward(self, state, action, next_state, rng, params=None):
            """Return the shared reward of the new position."""
            return slider_reward(next_state[0])

        def terminal(self, state, rng, params=None):
            """Whether the slider has left the track."""
            return slider_terminated(state[0], self.params)

    functional = SliderFunctional()
    functional.transform(jax.jit)
    env = FunctionalJaxEnv(functional)
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(2)
    print("jax, one step right: reward", round(float(reward), 3))
    batch = FunctionalJaxVectorEnv(SliderFunctional(), num_envs=8, max_episode_steps=100)
    observations, infos = batch.reset(seed=0)
    observations, rewards, *_ = batch.step(jnp.full(8, 1))
    print("jax, vmapped over 8 sliders:", observations.shape)
