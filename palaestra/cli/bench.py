"""``palaestra bench``: env-steps per second across vectorization modes, beside Gymnasium.

Every mode runs the same environment id with the same pre-generated random actions; each
measurement is the median of ``--repeats`` timed runs of ``--steps`` vector steps (autoreset
keeps episodes going; the one seeded reset is not timed), after a warm-up. The runs of all
modes are taken in turn, so that a change in machine load affects them alike. The results
print as a table (steps/s and the ratio to the reference mode measured in the same run),
followed by the modes that were skipped and why; ``--json`` prints one JSON line per
measurement instead (skip notes then go to stderr; ``PALAESTRA_BENCH_FORMAT=json`` in the
environment makes that the default, for scripts), and ``--markdown`` also writes a
Markdown table. An unknown env id or mode exits with status 2, a mode that fails to run
with status 1.

Modes: ``native`` (the env's natively batched class, numpy), ``native-numba`` (the same with
the numba accelerator), ``default`` (``make_vec(id, n)`` with no other argument), ``sync``,
``async``, ``pool`` (lockstep), ``pool-recv`` (EnvPool-style ``send``/``recv`` with half the
sub-envs per batch), ``pool-parent`` (lockstep, the parent stepping one group itself:
``parent_group=True``), and the references ``gym-native``, ``gym-sync``, ``gym-async``,
``gym-default`` (Gymnasium, when installed) and ``envpool`` (when installed).

Example:
    >>> from palaestra.cli import main
    >>> main(["bench", "CartPole-v1", "--modes", "native,sync", "--num-envs", "2",
    ...       "--steps", "5", "--repeats", "1", "--json"])  # doctest: +ELLIPSIS
    {"env_id": "CartPole-v1", "mode": "native", "num_envs": 2, "steps_per_s": ...}
    {"env_id": "CartPole-v1", "mode": "sync", "num_envs": 2, "steps_per_s": ...}
    0
    >>> main(["bench", "CartPole-v1", "--modes", "native", "--num-envs", "2",
    ...       "--steps", "5", "--repeats", "1"])  # doctest: +ELLIPSIS
    CartPole-v1 env-steps/s (ratio to gym-native)
    mode    N=2
    native  ...
    0
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra import error

__all__ = ["MODES", "Measurement", "add_parser", "run", "measure", "markdown_table", "text_table"]

DEFAULT_MODES = "native,native-numba,pool,sync,gym-native,gym-sync,gym-async,envpool"


def _palaestra(mode: str, **vector_kwargs: Any) -> Callable[[str, int], Any]:
    def make(env_id: str, num_envs: int) -> Any:
        import palaestra

        return palaestra.make_vec(
            env_id, num_envs, vectorization_mode=mode, vector_kwargs=vector_kwargs or None
        )

    return make


def _native(accelerator: str) -> Callable[[str, int], Any]:
    def make(env_id: str, num_envs: int) -> Any:
        import palaestra

        return palaestra.make_vec(
            env_id, num_envs, vectorization_mode="vector_entry_point", accelerator=accelerator
        )

    return make


def _gymnasium(mode: str | None) -> Callable[[str, int], Any]:
    def make(env_id: str, num_envs: int) -> Any:
        import gymnasium

        return gymnasium.make_vec(env_id, num_envs, vectorization_mode=mode)

    return make


def _default(env_id: str, num_envs: int) -> Any:
    import palaestra

    return palaestra.make_vec(env_id, num_envs)


class EnvPoolSync:
    """EnvPool in its synchronous mode (``batch_size == num_envs``), shaped like a vector env.

    EnvPool's ``action_space`` is the single sub-env's; the bench samples whole batches, so
    this adapter offers the batched space and passes everything else through. EnvPool is
    only ever a benchmark reference, never a dependency.

    Args:
        env_id: an id EnvPool knows (the classic-control ids share Gymnasium's).
        num_envs: the number of sub-environments.
    """

    def __init__(self, env_id: str, num_envs: int):
        import envpool

        from palaestra import spaces
        from palaestra.vector.utils import batch_space

        # EnvPool names the Atari games without ale-py's "ALE/" namespace ("Pong-v5").
        envpool_id = env_id.removeprefix("ALE/")
        self.pool = envpool.make_gymnasium(envpool_id, num_envs=num_envs, batch_size=num_envs)
        self.num_envs = num_envs
        single = self.pool.action_space
        if hasattr(single, "n"):
            single = spaces.Discrete(int(single.n), start=int(single.start))
        else:
            single = spaces.Box(single.low, single.high, single.shape, single.dtype)
        self.action_space = batch_space(single, num_envs)

    def reset(self, **kwargs: Any) -> Any:
        """Reset every sub-environment (EnvPool seeds at construction; ``seed`` is ignored)."""
        return self.pool.reset()

    def step(self, actions: Any) -> Any:
        """Step every sub-environment."""
        return self.pool.step(actions)

    def close(self) -> None:
        """Close the pool."""
        self.pool.close()


MODES: dict[str, tuple[Callable[[str, int], Any], str | None]] = {
    "native": (_native("numpy"), None),
    "native-numba": (_native("numba"), "numba"),
    "default": (_default, None),
    "sync": (_palaestra("sync"), None),
    "async": (_palaestra("async"), None),
    "pool": (_palaestra("pool"), None),
    "pool-recv": (_palaestra("pool"), None),
    "pool-parent": (_palaestra("pool", parent_group=True), None),
    "gym-native": (_gymnasium("vector_entry_point"), "gymnasium"),
    "gym-sync": (_gymnasium("sync"), "gymnasium"),
    "gym-async": (_gymnasium("async"), "gymnasium"),
    "gym-default": (_gymnasium(None), "gymnasium"),
    "envpool": (EnvPoolSync, "envpool"),
}
"""Mode name -> (factory ``(env_id, num_envs) -> vector env``, module it needs or None)."""


def _comma_list(text: str) -> list[str]:
    return [item for item in text.split(",") if item]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``bench`` subcommand to ``subparsers`` and return its parser."""
    parser = subparsers.add_parser(
        "bench",
        help="measure env-steps per second across vectorization modes",
        description="Measure env-steps/s of ENV_ID in several vectorization modes and sizes, "
        "beside Gymnasium (and EnvPool) in the same run. Prints a table of steps/s with the "
        "ratio to the reference mode, then the skipped modes and why; --json prints one JSON "
        "line per measurement instead.",
    )
    parser.add_argument("env_id", metavar="ENV_ID", help="a registered id, or module:Id")
    parser.add_argument(
        "--modes",
        type=_comma_list,
        default=_comma_list(DEFAULT_MODES),
        help=f"comma-separated modes among {', '.join(MODES)} (default: {DEFAULT_MODES}; "
        "modes whose package is missing are skipped)",
    )
    parser.add_argument(
        "--num-envs",
        type=lambda text: [int(n) for n in _comma_list(text)],
        default=[8, 64, 1024],
        help="comma-separated numbers of sub-envs (default: 8,64,1024)",
    )
    parser.add_argument("--steps", type=int, default=200, help="vector steps per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per measurement")
    parser.add_argument(
        "--reference", default="gym-native", help="the mode ratios are taken against"
    )
    parser.add_argument(
        "--max-envs",
        type=lambda text: dict(item.split("=") for item in _comma_list(text)),
        default={
            "sync": "1024",
            "async": "64",
            "gym-sync": "1024",
            "gym-async": "64",
            "envpool": "1024",
        },
        help="largest N per mode, as mode=N pairs (default keeps process-per-env modes small)",
    )
    parser.add_argument("--markdown", metavar="PATH", help="also write a Markdown table here")
    parser.add_argument(
        "--json",
        action="store_true",
        default=os.environ.get("PALAESTRA_BENCH_FORMAT") == "json",
        help="one JSON line per measurement instead of a table (also the default when the "
        "environment sets PALAESTRA_BENCH_FORMAT=json)",
    )
    return parser


class Measurement:
    """One vector env ready to be timed with pre-generated random actions.

    Args:
        make: builds the vector env from ``(env_id, num_envs)``.
        env_id: the environment id.
        num_envs: the number of sub-environments.
        steps: vector steps (or ``recv`` batches) per timed run.
        recv_batches: step with ``send``/``recv`` in batches of ``num_envs // 2``.

    Example:
        >>> from palaestra.cli.bench import MODES
        >>> measurement = Measurement(MODES["native"][0], "CartPole-v1", 4, steps=10)
        >>> measurement.rate() > 0
        True
        >>> measurement.close()
    """

    def __init__(
        self,
        make: Callable[[str, int], Any],
        env_id: str,
        num_envs: int,
        steps: int,
        recv_batches: bool = False,
    ):
        self.envs = make(env_id, num_envs)
        self.envs.action_space.seed(0)
        self.actions = [np.asarray(self.envs.action_space.sample()) for _ in range(steps)]
        # Reset once: a seeded reset is not what is measured (and seeds every sub-env).
        if recv_batches:
            self.envs.async_reset(seed=0)
            self.loop = _recv_loop
        else:
            self.envs.reset(seed=0)
            self.loop = _step_loop
        self.loop(self.envs, self.actions[: max(1, steps // 10)])

    def rate(self) -> float:
        """Run the actions once and return env-steps per second."""
        started = time.perf_counter()
        count = self.loop(self.envs, self.actions)
        return count / (time.perf_counter() - started)

    def close(self) -> None:
        """Close the vector env."""
        self.envs.close()


def measure(
    make: Callable[[str, int], Any],
    env_id: str,
    num_envs: int,
    steps: int,
    repeats: int,
    recv_batches: bool = False,
) -> float:
    """Return the median env-steps per second of ``repeats`` runs of ``steps`` vector steps.

    Example:
        >>> from palaestra.cli.bench import MODES
        >>> measure(MODES["native"][0], "CartPole-v1", 4, steps=10, repeats=1) > 0
        True
    """
    measurement = Measurement(make, env_id, num_envs, steps, recv_batches)
    try:
        return statistics.median(measurement.rate() for _ in range(repeats))
    finally:
        measurement.close()


def _step_loop(envs: Any, actions: list[np.ndarray]) -> int:
    for action in actions:
        envs.step(action)
    return len(actions) * envs.num_envs


def _recv_loop(envs: Any, actions: list[np.ndarray]) -> int:
    count = 0
    for action in actions:
        ids = envs.recv()[-1]["env_id"]
        envs.send(action[ids], ids)
        count += len(ids)
    return count


def _available(needs: str | None) -> bool:
    return needs is None or importlib.util.find_spec(needs) is not None


def _make_for(mode: str) -> Callable[[str, int], Any]:
    make, _ = MODES[mode]
    if mode != "pool-recv":
        return make

    def make_half_batches(env_id: str, num_envs: int) -> Any:
        import palaestra

        return palaestra.make_vec(
            env_id,
            num_envs,
            vectorization_mode="pool",
            # The lockstep pool's workers, so that only the stepping differs.
            vector_kwargs={"batch_size": max(1, num_envs // 2)},
        )

    return make_half_batches


def _import_module_prefix(env_id: str) -> None:
    """Import ``module`` of a ``module:Id`` env id, so both libraries see its registrations."""
    if ":" in env_id:
        importlib.import_module(env_id.split(":", 1)[0])


def run(args: argparse.Namespace) -> int:
    """Measure every mode at every size and print one JSON line per measurement.

    Raises:
        palaestra.error.Error: for an unknown mode.
    """
    unknown = [mode for mode in args.modes if mode not in MODES]
    if unknown:
        raise error.Error(f"Unknown bench modes {unknown}; choose among {list(MODES)}.")
    bad_sizes = [n for n in args.num_envs if n < 1]
    if bad_sizes or args.steps < 1 or args.repeats < 1 or not args.num_envs:
        raise error.Error(
            f"--num-envs, --steps and --repeats must be positive, got num_envs="
            f"{args.num_envs}, steps={args.steps}, repeats={args.repeats}."
        )
    _import_module_prefix(args.env_id)
    env_id = args.env_id.split(":", 1)[-1]
    from palaestra.envs.registration import spec

    spec(env_id)  # an unknown id is a usage error (with a did-you-mean hint), not N failures
    skipped: list[str] = []
    modes = []
    for mode in args.modes:
        if _available(MODES[mode][1]):
            modes.append(mode)
        else:
            skipped.append(f"{mode}: needs the {MODES[mode][1]!r} package, not installed")
    results = []
    failures = 0
    for num_envs in args.num_envs:
        rates, notes, failed = _interleaved_rates(args, env_id, num_envs, modes)
        skipped += notes
        failures += failed
        reference = rates.get(args.reference)
        for mode, rate in rates.items():
            line = {"env_id": env_id, "mode": mode, "num_envs": num_envs}
            line["steps_per_s"] = round(rate)
            if reference is not None:
                line[f"ratio_to_{args.reference}"] = round(rate / reference, 3)
            results.append(line)
            if args.json:
                print(json.dumps(line), flush=True)
    if not args.json:
        print(text_table(results, args.reference, env_id), end="")
    for note in skipped:
        print(f"skipped {note}", file=sys.stderr if args.json else sys.stdout)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as file:
            file.write(markdown_table(results, args.reference))
    return 1 if failures else 0


def text_table(results: list[dict[str, Any]], reference: str, env_id: str) -> str:
    """Render measurements as an aligned plain-text table: a row per mode, a column per N.

    Example:
        >>> rows = [{"env_id": "E", "mode": "native", "num_envs": 8, "steps_per_s": 2000,
        ...          "ratio_to_sync": 2.0}]
        >>> print(text_table(rows, "sync", "E"), end="")
        E env-steps/s (ratio to sync)
        mode    N=8
        native  2.0k (2.00x)
    """
    sizes = sorted({row["num_envs"] for row in results})
    modes = list(dict.fromkeys(row["mode"] for row in results))
    cells = {(row["mode"], row["num_envs"]): row for row in results}
    table = [["mode", *(f"N={n}" for n in sizes)]]
    for mode in modes:
        line = [mode]
        for n in sizes:
            row = cells.get((mode, n))
            if row is None:
                line.append("-")
                continue
            ratio = row.get(f"ratio_to_{reference}")
            text = _human(row["steps_per_s"])
            line.append(text if ratio is None else f"{text} ({ratio:.2f}x)")
        table.append(line)
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    rendered = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table
    ]
    return f"{env_id} env-steps/s (ratio to {reference})\n" + "\n".join(rendered) + "\n"


def _interleaved_rates(
    args: argparse.Namespace, env_id: str, num_envs: int, modes: list[str]
) -> tuple[dict[str, float], list[str], int]:
    """Median rate per mode, the repeats taken round-robin so load drifts hit all modes.

    Returns:
        ``(rates, skip notes, number of modes that failed to run)``.
    """
    measurements: dict[str, Measurement] = {}
    notes: list[str] = []
    failed = 0
    for mode in modes:
        limit = int(args.max_envs.get(mode, sys.maxsize))
        if num_envs > limit:
            notes.append(f"{mode} at N={num_envs}: above its --max-envs limit of {limit}")
            continue
        try:
            measurements[mode] = Measurement(
                _make_for(mode), env_id, num_envs, args.steps, recv_batches=mode == "pool-recv"
            )
        except Exception as exc:
            failed += 1
            message = str(exc).splitlines()[0] if str(exc) else ""
            notes.append(f"{mode} at N={num_envs}: failed ({type(exc).__name__}: {message})")
    samples: dict[str, list[float]] = {mode: [] for mode in measurements}
    try:
        for _ in range(args.repeats):
            for mode, measurement in measurements.items():
                samples[mode].append(measurement.rate())
    finally:
        for measurement in measurements.values():
            measurement.close()
    rates = {mode: statistics.median(values) for mode, values in samples.items()}
    return rates, notes, failed


def markdown_table(results: list[dict[str, Any]], reference: str) -> str:
    """Render measurements as a Markdown table: a row per mode, a column per N.

    Each cell holds steps/s and, when measured, the ratio to ``reference``.

    Example:
        >>> rows = [{"env_id": "E", "mode": "native", "num_envs": 8, "steps_per_s": 2000,
        ...          "ratio_to_gym-native": 2.0}]
        >>> print(markdown_table(rows, "gym-native"))
        | E | N=8 |
        |---|---|
        | native | 2.0k (2.00x) |
        <BLANKLINE>
    """
    sizes = sorted({row["num_envs"] for row in results})
    modes = list(dict.fromkeys(row["mode"] for row in results))
    env_id = results[0]["env_id"] if results else ""
    lines = [
        "| " + " | ".join([env_id, *(f"N={n}" for n in sizes)]) + " |",
        "|" + "---|" * (len(sizes) + 1),
    ]
    cells = {(row["mode"], row["num_envs"]): row for row in results}
    for mode in modes:
        row_cells = [mode]
        for n in sizes:
            row = cells.get((mode, n))
            if row is None:
                row_cells.append("")
                continue
            ratio = row.get(f"ratio_to_{reference}")
            text = _human(row["steps_per_s"])
            row_cells.append(text if ratio is None else f"{text} ({ratio:.2f}x)")
        lines.append("| " + " | ".join(row_cells) + " |")
    return "\n".join(lines) + "\n"


def _human(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"
