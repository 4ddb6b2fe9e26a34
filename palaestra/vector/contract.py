"""The vector-env contract: checks any vector env can be held to, runnable from pytest.

In the spirit of dm_env's conformance mixin: give a factory that builds a fresh vector env
(and, optionally, a reference factory whose trajectories it must reproduce exactly) and the
checks below exercise what palaestra's vector envs promise:

* ``spaces``: batched action space, observations inside the observation space, the shapes
  and dtypes of rewards and flags, a dict of infos.
* ``seeding``: equal seeds and actions give equal trajectories; ``seed=s`` equals
  ``seed=[s, s + 1, ...]``; a seeded reset repeats itself.
* ``autoreset``: the mode declared in ``metadata["autoreset_mode"]`` is followed (the reset
  step of ``NEXT_STEP``, ``final_obs``/``final_info`` of ``SAME_STEP``, the refused step and
  ``reset_mask`` recovery of ``DISABLED``); some episode must end within the rollout.
* ``reset_mask``: a masked reset resets exactly the masked rows, as a seeded full reset
  would; bad masks raise ``ValueError`` (shape) or ``TypeError`` (type, dtype).
* ``attributes``: ``call``, ``get_attr`` and ``set_attr`` reach every sub-env; unknown names
  raise ``AttributeError`` and leave the env usable.
* ``bad_input``: bad seeds and actions raise (the reference's exception type, where one is
  given) and leave the env usable.
* ``close``: ``close`` is idempotent, ``closed`` becomes true and ``reset``/``step`` then
  raise ``ClosedEnvironmentError``.
* ``reference``: the trajectory equals the reference factory's, value, dtype and type.

Info dicts are compared by key, not by key order (Gymnasium's own order depends on which
sub-envs ended).

Run every check with :func:`check_vector_env`, one with its ``check_*`` function, or let
pytest collect them by subclassing :class:`VectorEnvContract` in a test module::

    # test_my_vector_env.py
    from palaestra.vector.contract import VectorEnvContract

    class TestMyVectorEnv(VectorEnvContract):
        def make_env(self):
            return MyVectorEnv(num_envs=3, max_episode_steps=8)

        def make_reference(self):  # optional
            return palaestra.make_vec("MyEnv-v0", 3, vectorization_mode="sync")

:func:`assert_same` is the one comparator of trajectories palaestra's own test suite uses;
:func:`rollout` records one.

Example:
    >>> import palaestra as gym
    >>> check_vector_env(
    ...     lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"), steps=30
    ... )
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.vector.episodes import DISABLED, NEXT_STEP, SAME_STEP, autoreset_mode
from palaestra.vector.utils import batch_space, iterate

__all__ = [
    "assert_same",
    "rollout",
    "sample_actions",
    "check_spaces",
    "check_seeding",
    "check_autoreset",
    "check_reset_mask",
    "check_attributes",
    "check_bad_input",
    "check_close",
    "check_reference",
    "check_vector_env",
    "CHECKS",
    "VectorEnvContract",
]

Factory = Callable[[], Any]

SEED = 11
STEPS = 40


# The comparator ------------------------------------------------------------------------


def assert_same(
    ours: Any,
    theirs: Any,
    where: str = "value",
    *,
    ignore: Iterable[str] = (),
    key_order: bool = True,
) -> None:
    """Assert two nested values are identical: container types, keys, dtypes, shapes, bits.

    Containers and scalars are compared by type *name*, so values from palaestra and from
    Gymnasium compare equal when they agree; NaNs equal NaNs.

    Args:
        ours: the value under test (a trajectory, a step result, anything nested).
        theirs: the expected value.
        where: the path named in failure messages.
        ignore: dict keys left out of the comparison, at any depth.
        key_order: whether dict keys must also come in the same order.

    Raises:
        AssertionError: at the first difference, naming its path.

    Example:
        >>> assert_same({"a": np.zeros(2)}, {"a": np.zeros(2)})
        >>> assert_same([np.float32(1)], [np.float64(1)])
        Traceback (most recent call last):
            ...
        AssertionError: value[0]: type <class 'numpy.float32'> != <class 'numpy.float64'>
    """
    ignore = frozenset(ignore)
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            raise AssertionError(f"{where}: {type(ours)} is not a dict")
        mine, reference = list(ours), list(theirs)
        if not key_order:
            mine, reference = sorted(mine, key=str), sorted(reference, key=str)
        if mine != reference:
            raise AssertionError(f"{where}: keys {mine} != {reference}")
        for key in theirs:
            if key not in ignore:
                assert_same(ours[key], theirs[key], f"{where}[{key!r}]", ignore=ignore,
                            key_order=key_order)  # fmt: skip
    elif isinstance(theirs, tuple | list):
        if type(ours).__name__ != type(theirs).__name__:
            raise AssertionError(f"{where}: {type(ours)}")
        if len(ours) != len(theirs):
            raise AssertionError(f"{where}: length {len(ours)} != {len(theirs)}")
        for index, (mine, reference) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(mine, reference, f"{where}[{index}]", ignore=ignore, key_order=key_order)
    elif isinstance(theirs, np.ndarray):
        if not isinstance(ours, np.ndarray):
            raise AssertionError(f"{where}: {type(ours)} is not an ndarray")
        if ours.dtype != theirs.dtype:
            raise AssertionError(f"{where}: dtype {ours.dtype} != {theirs.dtype}")
        if ours.shape != theirs.shape:
            raise AssertionError(f"{where}: shape {ours.shape} != {theirs.shape}")
        if theirs.dtype == object:
            for index in np.ndindex(theirs.shape):
                assert_same(ours[index], theirs[index], f"{where}{list(index)}", ignore=ignore,
                            key_order=key_order)  # fmt: skip
        else:
            if not np.array_equal(ours, theirs, equal_nan=theirs.dtype.kind in "fc"):
                raise AssertionError(f"{where}: {ours} != {theirs}")
    else:
        if type(ours).__name__ != type(theirs).__name__:
            raise AssertionError(f"{where}: type {type(ours)} != {type(theirs)}")
        both_nan = ours != ours and theirs != theirs
        if both_nan or ours != theirs:
            raise AssertionError(f"{where}: {ours!r} != {theirs!r}")


def sample_actions(space: Any, count: int, seed: int = 7) -> list[Any]:
    """``count`` actions drawn from a seeded copy of ``space`` (the space itself is untouched).

    Example:
        >>> from palaestra.spaces import Discrete
        >>> sample_actions(Discrete(5), 3, seed=0) == sample_actions(Discrete(5), 3, seed=0)
        True
    """
    space = copy.deepcopy(space)
    space.seed(seed)
    return [space.sample() for _ in range(count)]


def rollout(
    env: Any, actions: Iterable[Any], seed: int | None = SEED, options: dict | None = None
) -> list[Any]:
    """Reset ``env`` with ``seed`` and play ``actions``; return every result, in order.

    A single env is reset when its episode ends; a vector env in ``DISABLED`` autoreset mode
    is reset by ``reset_mask`` for the rows that ended (each reset's result is recorded too).
    Actions are deep-copied, so an env that writes into them cannot change the next player's.

    Args:
        env: a single or vector env (palaestra's or Gymnasium's).
        actions: the actions (batches of actions for a vector env).
        seed: the seed of the first reset.
        options: the options of the first reset.

    Example:
        >>> import palaestra as gym
        >>> trace = rollout(gym.make("CartPole-v1", max_episode_steps=2), [0, 0, 0], seed=0)
        >>> [len(item) for item in trace]
        [2, 5, 5, 2, 5]
    """
    trace: list[Any] = [env.reset(seed=seed, options=options)]
    vector = hasattr(env, "num_envs")
    disabled = vector and getattr(env.metadata.get("autoreset_mode"), "value", None) == "Disabled"
    for action in actions:
        step = env.step(copy.deepcopy(action))
        trace.append(step)
        if vector:
            ended = np.logical_or(step[2], step[3])
            if disabled and ended.any():
                trace.append(env.reset(options={"reset_mask": ended}))
        elif step[2] or step[3]:
            trace.append(env.reset())
    return trace


# Helpers of the checks -------------------------------------------------------------------


def _actions(env: Any, count: int, seed: int = 7) -> list[Any]:
    return sample_actions(env.action_space, count, seed)


def _rows(env: Any, observations: Any) -> list[Any]:
    return list(iterate(env.observation_space, observations))


def _raises(expected: type | tuple[type, ...], action: Callable[[], Any], what: str) -> Any:
    try:
        action()
    except expected as error:
        return error
    except Exception as error:
        raise AssertionError(f"{what} raised {type(error).__name__}: {error}") from error
    names = expected.__name__ if isinstance(expected, type) else [e.__name__ for e in expected]
    raise AssertionError(f"{what} raised nothing; expected {names}")


def _raised(action: Callable[[], Any]) -> BaseException | None:
    try:
        action()
    except Exception as error:
        return error
    return None


def _still_usable(env: Any, after: str) -> None:
    try:
        env.reset(seed=SEED)
        env.step(_actions(env, 1)[0])
    except Exception as error:
        raise AssertionError(
            f"after {after}, the env no longer works: reset/step raised "
            f"{type(error).__name__}: {error}"
        ) from error


class _Closing:
    """Build an env and close it whatever happens, as ``with`` would."""

    def __init__(self, make_env: Factory):
        self.env = make_env()

    def __enter__(self) -> Any:
        return self.env

    def __exit__(self, *exc: Any) -> None:
        self.env.close()


# The checks ------------------------------------------------------------------------------


def check_spaces(make_env: Factory, steps: int = STEPS) -> None:
    """Check the batched spaces and the types and shapes of what ``reset``/``step`` return.

    Raises:
        AssertionError: naming the first violation.

    Example:
        >>> import palaestra as gym
        >>> check_spaces(lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    """
    with _Closing(make_env) as env:
        n = env.num_envs
        if not (isinstance(n, int) and n >= 1):
            raise AssertionError(f"num_envs must be a positive int, got {n!r}")
        expected = batch_space(env.single_action_space, n)
        if env.action_space != expected:
            raise AssertionError(
                f"action_space={env.action_space} is not the batch of "
                f"single_action_space={env.single_action_space}: expected {expected}"
            )
        observations, infos = env.reset(seed=SEED)
        if not isinstance(infos, dict):
            raise AssertionError(f"reset's info is a {type(infos)}, not a dict")
        if not env.observation_space.contains(observations):
            raise AssertionError(
                f"reset's observations are outside observation_space={env.observation_space}"
            )
        for t, action in enumerate(_actions(env, steps)):
            result = env.step(action)
            if not (isinstance(result, tuple) and len(result) == 5):
                raise AssertionError(
                    f"step {t} returned {type(result).__name__} {result!r:.80}, not a 5-tuple"
                )
            observations, rewards, terminations, truncations, infos = result
            if not env.observation_space.contains(observations):
                raise AssertionError(f"step {t}'s observations are outside observation_space")
            if np.shape(rewards) != (n,):
                raise AssertionError(f"step {t}: rewards of shape {np.shape(rewards)}")
            for name, flags in (("terminations", terminations), ("truncations", truncations)):
                if not (isinstance(flags, np.ndarray) and flags.dtype == np.bool_):
                    raise AssertionError(
                        f"step {t}: {name} must be a bool array, got {type(flags)} "
                        f"{getattr(flags, 'dtype', '')}"
                    )
                if flags.shape != (n,):
                    raise AssertionError(f"step {t}: {name} of shape {flags.shape}")
            if not isinstance(infos, dict):
                raise AssertionError(f"step {t}'s info is a {type(infos)}, not a dict")
            ended = terminations | truncations
            if ended.any() and autoreset_mode(env) is DISABLED:
                env.reset(options={"reset_mask": ended})


def check_seeding(make_env: Factory, steps: int = STEPS) -> None:
    """Check that seeds make trajectories reproducible, per sub-env and per env.

    Raises:
        AssertionError: naming the first violation.

    Example:
        >>> import palaestra as gym
        >>> check_seeding(lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    """
    with _Closing(make_env) as first, _Closing(make_env) as second:
        actions = _actions(first, steps)
        assert_same(
            rollout(second, actions), rollout(first, actions), "second env's trajectory",
            key_order=False,
        )  # fmt: skip
        n = first.num_envs
        by_int = first.reset(seed=SEED)[0]
        by_list = second.reset(seed=[SEED + i for i in range(n)])[0]
        assert_same(by_list, by_int, f"reset(seed=[{SEED}, {SEED} + 1, ...]) vs seed={SEED}")
        rollout(first, actions[:3], SEED + 1)
        assert_same(first.reset(seed=SEED)[0], by_int, "a repeated seeded reset")


def check_autoreset(make_env: Factory, steps: int = STEPS) -> None:
    """Check that the env follows the autoreset mode it declares.

    Raises:
        AssertionError: naming the first violation, or if no episode ended within ``steps``
            (build the env with a short ``max_episode_steps`` for the contract).

    Example:
        >>> import palaestra as gym
        >>> check_autoreset(lambda: gym.make_vec(
        ...     "CartPole-v1", 2, vectorization_mode="sync", max_episode_steps=5))
    """
    with _Closing(make_env) as env:
        if "autoreset_mode" not in env.metadata:
            raise AssertionError("metadata has no 'autoreset_mode'")
        mode = autoreset_mode(env)
        single = env.single_observation_space
        env.reset(seed=SEED)
        previous = np.zeros(env.num_envs, dtype=np.bool_)
        episodes_ended = 0
        for t, action in enumerate(_actions(env, steps)):
            if mode is DISABLED and previous.any():
                _raises(RuntimeError, lambda a=action: env.step(a), "stepping an ended sub-env")
                env.reset(options={"reset_mask": previous})
                previous = np.zeros(env.num_envs, dtype=np.bool_)
            _, rewards, terminations, truncations, infos = env.step(action)
            ended = terminations | truncations
            where = f"{mode.name} step {t}"
            if mode is NEXT_STEP:
                for i in np.flatnonzero(previous):
                    if (rewards[i], terminations[i], truncations[i]) != (0, False, False):
                        raise AssertionError(
                            f"{where}: sub-env {i}'s reset step returned reward {rewards[i]}, "
                            f"terminated {terminations[i]}, truncated {truncations[i]}"
                        )
            if mode is SAME_STEP and ended.any():
                for key in ("final_obs", "final_info"):
                    if key not in infos:
                        raise AssertionError(f"{where}: episodes ended but info has no {key!r}")
                    assert_same(infos[f"_{key}"], ended, f"{where}: info['_{key}']")
                for i in np.flatnonzero(ended):
                    if not single.contains(infos["final_obs"][i]):
                        raise AssertionError(
                            f"{where}: final_obs[{i}] is outside single_observation_space"
                        )
            elif "final_obs" in infos and np.any(infos["_final_obs"]):
                raise AssertionError(f"{where}: final_obs without an end")
            episodes_ended += int(ended.sum())
            previous = ended
        if not episodes_ended:
            raise AssertionError(
                f"no episode ended in {steps} steps, so autoreset went unchecked: build the env "
                "with a shorter time limit (max_episode_steps) or give more steps"
            )


def check_reset_mask(make_env: Factory, steps: int = 3) -> None:
    """Check ``reset(options={"reset_mask": mask})`` and its errors for bad masks.

    Raises:
        AssertionError: naming the first violation.

    Example:
        >>> import palaestra as gym
        >>> check_reset_mask(lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    """
    with _Closing(make_env) as env, _Closing(make_env) as fresh:
        n = env.num_envs
        seeded = _rows(fresh, fresh.reset(seed=SEED)[0])
        observations = rollout(env, _actions(env, steps), SEED + 100)[-1][0]
        before = _rows(env, copy.deepcopy(observations))
        mask = np.zeros(n, dtype=np.bool_)
        mask[0] = True
        after = _rows(env, env.reset(seed=SEED, options={"reset_mask": mask})[0])
        assert_same(after[0], seeded[0], "the masked row after reset(seed=s, reset_mask)")
        for i in range(1, n):
            assert_same(after[i], before[i], f"unmasked row {i} after a masked reset")
        for bad, error in (
            (np.ones(n + 1, dtype=np.bool_), ValueError),
            (np.ones(n, dtype=np.int64), TypeError),
            ([True] * n, TypeError),
        ):
            _raises(
                error, lambda b=bad: env.reset(options={"reset_mask": b}), f"reset_mask={bad!r}"
            )
        _still_usable(env, "bad reset masks")


def check_attributes(make_env: Factory) -> None:
    """Check ``call``, ``get_attr`` and ``set_attr`` over the sub-envs.

    Raises:
        AssertionError: naming the first violation.

    Example:
        >>> import palaestra as gym
        >>> check_attributes(lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    """
    with _Closing(make_env) as env:
        n = env.num_envs
        for method in ("call", "get_attr", "set_attr"):
            if not callable(getattr(env, method, None)):
                raise AssertionError(f"{type(env).__name__} has no {method}")
        env.reset(seed=SEED)
        spaces_ = env.get_attr("action_space")
        assert_same(list(spaces_), [env.single_action_space] * n, "get_attr('action_space')")
        env.set_attr("contract_probe", list(range(n)))
        assert_same(list(env.get_attr("contract_probe")), list(range(n)), "get_attr after set")
        env.set_attr("contract_probe", "all")
        assert_same(list(env.call("contract_probe")), ["all"] * n, "call of a plain attribute")
        _raises(
            ValueError,
            lambda: env.set_attr("contract_probe", list(range(n + 1))),
            f"set_attr with {n + 1} values for {n} sub-envs",
        )
        _raises(AttributeError, lambda: env.get_attr("no_such_attribute"), "get_attr(typo)")
        _raises(AttributeError, lambda: env.call("no_such_method"), "call(typo)")
        _still_usable(env, "an unknown attribute name")


def _bad_actions(env: Any) -> list[tuple[str, Any]]:
    """Batches of actions that are not in the action space, with a name each."""
    good = _actions(env, 1)[0]
    wrong_size = np.concatenate([good, good]) if isinstance(good, np.ndarray) else None
    bad: list[tuple[str, Any]] = []
    if wrong_size is not None:
        bad.append(("a batch of the wrong size", wrong_size))
    single = env.single_action_space
    if isinstance(single, spaces.Discrete):
        out_of_range = np.array(good, copy=True)
        out_of_range[0] = int(single.start) + int(single.n)
        fractional = np.array(good, dtype=np.float64) + 0.5
        bad += [("an out-of-range action", out_of_range), ("fractional actions", fractional)]
    return bad


def check_bad_input(make_env: Factory, make_reference: Factory | None = None) -> None:
    """Check that bad seeds and actions raise, as the reference does, and harm nothing.

    Raises:
        AssertionError: naming the first violation.

    Example:
        >>> import palaestra as gym
        >>> check_bad_input(lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    """
    with _Closing(make_env) as env:
        n = env.num_envs
        cases: list[tuple[str, Callable[[Any], Any]]] = [
            (f"reset(seed=<{n + 1} seeds>)", lambda e: e.reset(seed=list(range(n + 1)))),
            ("reset(seed=-1)", lambda e: e.reset(seed=-1)),
        ]
        for name, actions in _bad_actions(env):
            cases.append((f"step with {name}", lambda e, a=actions: e.step(a)))
        for name, call in cases:
            env.reset(seed=SEED)
            error = _raised(lambda c=call: c(env))
            if error is None:
                raise AssertionError(f"{name} raised nothing")
            if make_reference is not None:
                with _Closing(make_reference) as reference:
                    reference.reset(seed=SEED)
                    expected = _raised(lambda c=call, r=reference: c(r))
                if type(error).__name__ != type(expected).__name__:
                    raise AssertionError(
                        f"{name} raised {type(error).__name__} ({error}); the reference raised "
                        f"{type(expected).__name__} ({expected})"
                    )
            _still_usable(env, name)


def check_close(make_env: Factory) -> None:
    """Check that ``close`` is idempotent and that a closed env refuses ``reset`` and ``step``.

    Raises:
        AssertionError: naming the first violation.

    Example:
        >>> import palaestra as gym
        >>> check_close(lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    """
    env = make_env()
    env.reset(seed=SEED)
    action = _actions(env, 1)[0]
    env.close()
    env.close()
    if env.closed is not True:
        raise AssertionError(f"closed is {env.closed!r} after close()")
    for name, call in (("reset", lambda: env.reset(seed=SEED)), ("step", lambda: env.step(action))):
        error = _raised(call)
        if not (error is not None and type(error).__name__ == "ClosedEnvironmentError"):
            raise AssertionError(
                f"{name} after close() should raise ClosedEnvironmentError, got "
                f"{'nothing' if error is None else f'{type(error).__name__}: {error}'}"
            )


def check_reference(make_env: Factory, make_reference: Factory, steps: int = STEPS) -> None:
    """Check that the env's seeded trajectory equals the reference's, value, dtype and type.

    Raises:
        AssertionError: naming the first difference.

    Example:
        >>> import palaestra as gym
        >>> check_reference(
        ...     lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="vector_entry_point"),
        ...     lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"),
        ... )
    """
    with _Closing(make_env) as env, _Closing(make_reference) as reference:
        actions = _actions(reference, steps)
        assert_same(
            rollout(env, actions), rollout(reference, actions), "trajectory", key_order=False
        )


CHECKS: dict[str, Callable[..., None]] = {
    "spaces": check_spaces,
    "seeding": check_seeding,
    "autoreset": check_autoreset,
    "reset_mask": check_reset_mask,
    "attributes": check_attributes,
    "bad_input": check_bad_input,
    "close": check_close,
    "reference": check_reference,
}


def check_vector_env(
    make_env: Factory,
    make_reference: Factory | None = None,
    steps: int = STEPS,
    skip: Sequence[str] = (),
) -> None:
    """Run every contract check (those in ``skip`` left out) on envs built by ``make_env``.

    Args:
        make_env: builds a fresh vector env (each check builds and closes its own).
        make_reference: builds the env whose trajectories and error types ``make_env``'s
            must match, or ``None``.
        steps: the length of the random rollouts; some episode must end within it.
        skip: names of checks (keys of :data:`CHECKS`) not to run.

    Raises:
        AssertionError: from the first failing check, prefixed with its name.
        ValueError: for an unknown name in ``skip``.

    Example:
        >>> import palaestra as gym
        >>> check_vector_env(
        ...     lambda: gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"), skip=["seeding"]
        ... )
    """
    unknown = set(skip) - set(CHECKS)
    if unknown:
        raise ValueError(f"Unknown contract checks {sorted(unknown)}; known: {list(CHECKS)}")
    for name in CHECKS:
        if name in skip or (name == "reference" and make_reference is None):
            continue
        try:
            _run_check(name, make_env, make_reference, steps)
        except AssertionError as error:
            raise AssertionError(f"vector-env contract, check {name!r}: {error}") from error


def _run_check(name: str, make_env: Factory, make_reference: Factory | None, steps: int) -> None:
    """Call check ``name`` with the arguments it takes."""
    check = CHECKS[name]
    if name == "reference":
        check(make_env, make_reference, steps)
    elif name == "bad_input":
        check(make_env, make_reference)
    elif name in ("spaces", "seeding", "autoreset"):
        check(make_env, steps)
    else:
        check(make_env)


class VectorEnvContract:
    """A mixin of pytest tests, one per contract check; subclass it as ``Test...``.

    Define :meth:`make_env` (and optionally :meth:`make_reference`); set :attr:`steps` for
    longer rollouts and :attr:`skip` to leave checks out (e.g. ``("attributes",)`` for an
    env without sub-env attributes). pytest collects the inherited ``test_*`` methods.

    Example:
        >>> import palaestra as gym
        >>> class TestCartPoles(VectorEnvContract):
        ...     def make_env(self):
        ...         return gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
        >>> TestCartPoles().test_close()
    """

    steps: int = STEPS
    skip: Sequence[str] = ()

    def make_env(self) -> Any:
        """Build a fresh vector env to check.

        Raises:
            NotImplementedError: in this mixin; subclasses define it.
        """
        raise NotImplementedError("Define make_env() in your VectorEnvContract subclass.")

    def make_reference(self) -> Any | None:
        """Build the reference vector env, or return ``None`` for none (the default)."""
        return None

    def _reference_factory(self) -> Factory | None:
        probe = self.make_reference()
        if probe is None:
            return None
        probe.close()
        return self.make_reference

    def _run(self, name: str) -> None:
        if name in self.skip:
            return
        reference = self._reference_factory() if name in ("bad_input", "reference") else None
        if name == "reference" and reference is None:
            return
        _run_check(name, self.make_env, reference, self.steps)


def _contract_test(name: str) -> Callable[[VectorEnvContract], None]:
    """Build the mixin's test method that runs check ``name``."""

    def test(self: VectorEnvContract) -> None:
        self._run(name)

    test.__name__ = test.__qualname__ = f"test_{name}"
    test.__doc__ = f"The contract's ``{name}`` check."
    return test


for _name in CHECKS:
    setattr(VectorEnvContract, f"test_{_name}", _contract_test(_name))
