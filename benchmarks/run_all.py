"""Run the judged benchmark suite and write ``benchmarks/RESULTS.md`` and ``results.jsonl``.

Each section is one ``palaestra bench`` run, so every ratio compares modes measured side by
side in the same process run on the same machine. Usage (from the repository root)::

    python benchmarks/run_all.py                  # the full suite (many minutes)
    python benchmarks/run_all.py --quick          # fewer steps and repeats, for a smoke test
    python benchmarks/run_all.py --only default   # the sections whose title contains "default"
    python benchmarks/run_all.py --before 4386f6f # also each section on that commit, in turn

To add a section, append one ``Section`` to ``SUITE``: a title, the ``palaestra bench``
arguments, the reference mode the ratios are taken against and, optionally, environment
variables for that run (e.g. ``{"PALAESTRA_ACCELERATOR": "numpy"}``) and the number of timed
repeats (5 unless the section needs more to be steady; ``--quick`` takes 2).

With ``--before REV`` every section also runs on a copy of commit ``REV`` (``git archive``;
or ``REV`` may be the path of an extracted source tree),
alternating before/after runs (``--rounds`` of each, median per mode and size), and the report
gains a before/after table. Modes that ``REV``'s bench does not know are measured after only.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import NamedTuple

from palaestra.cli.bench import markdown_table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CLASSIC = ["CartPole-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1", "Acrobot-v1"]
WITHOUT_NUMBA = {"PALAESTRA_ACCELERATOR": "numpy"}


class Section(NamedTuple):
    """One ``palaestra bench`` run of the suite."""

    title: str
    arguments: list[str]
    reference: str
    environment: dict[str, str] = {}
    repeats: int = 5


SUITE: list[Section] = [
    Section(
        "CartPole: native batched (numpy and numba) vs Gymnasium's native CartPoleVectorEnv",
        [
            "CartPole-v1",
            "--modes",
            "native,native-numba,gym-native,envpool",
            "--num-envs",
            "8,64,1024,16384",
            "--steps",
            "400",
        ],
        "gym-native",
    ),
    Section(
        "CartPole: pool vs Gymnasium's sync and async vector envs",
        [
            "CartPole-v1",
            "--modes",
            "pool,sync,gym-sync,gym-async",
            "--num-envs",
            "8,64",
            "--steps",
            "300",
        ],
        "gym-async",
    ),
    Section(
        "1 ms of CPU per step: pool vs Gymnasium's sync and async vector envs (N=8)",
        [
            "benchmarks.busy_env:BusyEnv-v0",
            "--modes",
            "pool,gym-sync,gym-async",
            "--num-envs",
            "8",
            "--steps",
            "60",
        ],
        "gym-sync",
    ),
    Section(
        "0.2-2 ms of CPU per step: send/recv with batches of N/2 vs lockstep pool (N=8)",
        [
            "benchmarks.busy_env:JitteryEnv-v0",
            "--modes",
            "pool-recv,pool",
            "--num-envs",
            "8",
            "--steps",
            "60",
        ],
        "pool",
    ),
]
SUITE += [
    Section(
        f"{env_id}: native batched vs EnvPool sync (when installed) and Gymnasium",
        [
            env_id,
            "--modes",
            "native,native-numba,envpool," + ("gym-native" if env_id == CLASSIC[0] else "gym-sync"),
            "--num-envs",
            "8,64,1024",
            "--steps",
            "100",
        ],
        # The reference must be one of the section's modes.
        "envpool"
        if importlib.util.find_spec("envpool")
        else ("gym-native" if env_id == CLASSIC[0] else "gym-sync"),
    )
    for env_id in CLASSIC
]
# The default-mode table: make_vec(id, n) of both libraries, with numba installed (the tiered
# "auto" accelerator: numpy for a run's first 4,096 steps and 0.5 s of stepping, numba after;
# these short runs stay on numpy) and forced to numpy (as where numba is not installed). The
# compiled path itself is the native-numba mode of the sections above; benchmarks/startup.py
# times whole processes, the move to numba included.
DEFAULT_SECTION_PREFIX = "Default make_vec"
AUTO_LABEL = "auto, numba installed"
NUMPY_LABEL = "numpy only"
SUITE += [
    Section(
        f"{DEFAULT_SECTION_PREFIX} {label}: {env_id}",
        [env_id, "--modes", "default,gym-default", "--num-envs", "8,64,1024", "--steps", "200"],
        "gym-default",
        environment,
    )
    for label, environment in ((AUTO_LABEL, {}), (NUMPY_LABEL, WITHOUT_NUMBA))
    for env_id in CLASSIC
]
# Box2D: the pool (several Box2D worlds per worker) against Gymnasium's vector envs. A pool
# step of N=8 landers takes about 0.15 ms and the pool's pace on two shared cores varies from
# repeat to repeat by +-15%: 2,000 steps per repeat (0.25-1.5 s per mode) and 21 repeats,
# taken round-robin, make the median steady to about +-3% in 30-45 s per section.
LANDER_STEPS = ["--num-envs", "8", "--steps", "2000"]
SUITE += [
    Section(
        "LunarLander-v3 (N=8): pool vs Gymnasium's SyncVectorEnv",
        ["LunarLander-v3", "--modes", "pool,pool-parent,sync,gym-sync", *LANDER_STEPS],
        "gym-sync",
        repeats=21,
    ),
    Section(
        "LunarLander-v3 (N=8): pool vs Gymnasium's AsyncVectorEnv",
        ["LunarLander-v3", "--modes", "pool,pool-parent,async,gym-async", *LANDER_STEPS],
        "gym-async",
        # A round takes about 3.5 s (Gymnasium's async alone 1.7 s): 11 keep it under 45 s.
        repeats=11,
    ),
    Section(
        "CarRacing-v3 (N=4, 96x96x3 pixels through shared memory): pool vs Gymnasium's async",
        ["CarRacing-v3", "--modes", "pool,async,gym-async", "--num-envs", "4", "--steps", "60"],
        "gym-async",
        # A repeat is 0.3-1 s per mode (each step draws four frames); 5 varied by +-5%.
        repeats=11,
    ),
]
# Toy text: the natively batched envs (make_vec's default) against Gymnasium's sync.
TOY_TEXT = ["FrozenLake-v1", "Taxi-v4", "CliffWalking-v1", "Blackjack-v1"]
SUITE += [
    Section(
        f"{env_id}: native batched vs Gymnasium's SyncVectorEnv",
        [env_id, "--modes", "native,gym-sync", "--num-envs", "8,1024", "--steps", "200"],
        "gym-sync",
    )
    for env_id in TOY_TEXT
]
# MuJoCo: the batched MujocoVectorEnv (make_vec's default) against Gymnasium's vector envs
# and EnvPool (when it imports); benchmarks/mujoco_speed.py also times one env's step.
MUJOCO_MODES = "native,gym-sync,gym-async,envpool"
SUITE += [
    Section(
        f"{env_id}: batched MujocoVectorEnv vs Gymnasium's sync and async, and EnvPool",
        # 100 steps: a timed run of N=8 then lasts about 0.1 s, long enough that one
        # scheduler hiccup of the shared machine does not decide a repeat. 9 repeats: with
        # 5, three runs' ratios to EnvPool at N=8 spread by up to +-9% on the shared machine.
        [env_id, "--modes", MUJOCO_MODES, "--num-envs", "8,64", "--steps", "100"],
        "gym-sync",
        repeats=9,
    )
    for env_id in ("HalfCheetah-v5", "Ant-v5", "Humanoid-v5")
]
# Single-env step time beside Gymnasium (benchmarks/single_env_step.py): (title, arguments).
SINGLE_ENV = [
    (
        "Box2D: one environment's step time vs Gymnasium's (µs per step, bare and through make)",
        ["--env-ids", "box2d", "--steps", "3000"],
    ),
]


def run_section(
    section: Section, quick: bool, root: Path = ROOT, modes: list[str] | None = None
) -> list[dict]:
    """Run one bench invocation in the tree at ``root`` and return its measurements."""
    arguments = list(section.arguments)
    if modes is not None:
        arguments[arguments.index("--modes") + 1] = ",".join(modes)
    extra = ["--steps", "30", "--repeats", "2"] if quick else ["--repeats", str(section.repeats)]
    command = [sys.executable, "-m", "palaestra", "bench", *arguments, *extra]
    command += ["--reference", section.reference]
    # The tree first; a caller's PYTHONPATH after it (e.g. where EnvPool was installed with
    # --no-deps --target, as benchmarks/mujoco_speed.py describes).
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, **section.environment, "PYTHONPATH": path}
    env["PALAESTRA_BENCH_FORMAT"] = "json"  # JSON lines, not bench's default table
    output = subprocess.run(
        command, check=True, capture_output=True, text=True, cwd=root, env=env
    ).stdout
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def checkout(revision: str, directory: Path) -> Path:
    """Extract commit ``revision`` of this repository into ``directory`` (no git state)."""
    archive = directory / "tree.tar"
    with archive.open("wb") as file:
        subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, stdout=file)
    tree = directory / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def known_modes(root: Path) -> set[str]:
    """The bench modes the tree at ``root`` knows."""
    code = "from palaestra.cli.bench import MODES; print(','.join(MODES))"
    env = {**os.environ, "PYTHONPATH": str(root)}
    names = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=root, env=env
    ).stdout
    return set(names.strip().split(","))


def _rates(rounds: list[list[dict]]) -> dict[tuple[str, int], float]:
    """Median rate per (mode, num_envs) over several runs of one section."""
    collected: dict[tuple[str, int], list[float]] = {}
    for results in rounds:
        for row in results:
            if "steps_per_s" in row:
                collected.setdefault((row["mode"], row["num_envs"]), []).append(row["steps_per_s"])
    return {key: statistics.median(values) for key, values in collected.items()}


def _median_rows(rounds: list[list[dict]], reference: str) -> list[dict]:
    """One row per (mode, num_envs): median rate, and its ratio to the median reference."""
    rates = _rates(rounds)
    rows = []
    for (mode, num_envs), rate in rates.items():
        row = {"env_id": rounds[0][0]["env_id"], "mode": mode, "num_envs": num_envs}
        row["steps_per_s"] = round(rate)
        if (reference, num_envs) in rates:
            row[f"ratio_to_{reference}"] = round(rate / rates[reference, num_envs], 3)
        rows.append(row)
    return rows


def default_table(measured: dict[str, list[dict]]) -> list[str]:
    """The summary of the default-mode sections: one ratio per id, size and accelerator."""
    lines = [
        "## Summary: default make_vec, palaestra vs Gymnasium",
        "",
        "`make_vec(id, n)` with no other argument in both libraries; the ratio is palaestra's "
        "env-steps/s over Gymnasium's, measured side by side in the same run (median of "
        "repeats). *auto, numba installed*: the default accelerator, which steps on numpy "
        "for a run's first 4,096 steps and 0.5 s of stepping and moves to numba after (these "
        "short runs stay on numpy; the compiled path is the `native-numba` mode above, and "
        "`benchmarks/startup.py` times whole runs, the move included). *numpy only*: "
        "`PALAESTRA_ACCELERATOR=numpy`, the path `auto` takes where numba is not installed.",
        "",
        f"| id | N | {AUTO_LABEL} | {NUMPY_LABEL} |",
        "|---|---:|---:|---:|",
    ]
    for env_id in CLASSIC:
        cells: dict[int, dict[str, str]] = {}
        for label in (AUTO_LABEL, NUMPY_LABEL):
            for row in measured.get(f"{DEFAULT_SECTION_PREFIX} {label}: {env_id}", []):
                if row["mode"] == "default" and "ratio_to_gym-default" in row:
                    cell = f"{row['ratio_to_gym-default']:.2f}x"
                    cells.setdefault(row["num_envs"], {})[label] = cell
        for num_envs, by_label in sorted(cells.items()):
            tiered = by_label.get(AUTO_LABEL, "-")
            numpy_only = by_label.get(NUMPY_LABEL, "-")
            lines.append(f"| {env_id} | {num_envs} | {tiered} | {numpy_only} |")
    return [*lines, ""]


def before_after_table(comparisons: list[tuple[Section, dict, dict]], revision: str) -> list[str]:
    """Rates before (at ``revision``) and after, and the change of each ratio to the reference.

    The reference (a Gymnasium mode, the same code in both trees) measured in the same run
    cancels most of the machine's load drift between the runs; the rates alone do not.
    """
    lines = [
        f"## Before/after: `{revision}` vs this tree",
        "",
        "Each section ran on both trees in turn in this session; median env-steps/s per mode "
        "and size. *Change* is that of the mode's ratio to the section's reference measured in "
        "the same run (Gymnasium's code is the same in both trees, so it absorbs the load "
        "drift between runs that the raw rates show); on a shared machine read changes within "
        "about ±10% as noise.",
        "",
        "| section | mode | N | before | after | change of ratio to reference |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for section, before, after in comparisons:
        reference = section.reference
        for (mode, num_envs), rate in sorted(after.items()):
            if (mode, num_envs) not in before or mode == reference:
                continue
            old = before[mode, num_envs]
            change = "-"
            if (reference, num_envs) in before and (reference, num_envs) in after:
                old_ratio = old / before[reference, num_envs]
                new_ratio = rate / after[reference, num_envs]
                change = f"{(new_ratio / old_ratio - 1) * 100:+.1f}%"
            lines.append(
                f"| {section.title} | {mode} | {num_envs} | {old:,.0f} | {rate:,.0f} | {change} |"
            )
    return [*lines, ""]


def run_single_env(arguments: list[str], quick: bool) -> tuple[list[dict], list[str]]:
    """Run ``single_env_step.py``; return its JSON lines and a Markdown table of them."""
    extra = ["--steps", "300", "--repeats", "2"] if quick else ["--repeats", "5"]
    command = [sys.executable, str(HERE / "single_env_step.py"), *arguments, *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    output = subprocess.run(
        command, check=True, capture_output=True, text=True, cwd=ROOT, env=env
    ).stdout
    rows = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    table = [
        "| env | steps | bare: palaestra µs | Gymnasium µs | ratio | make: palaestra µs "
        "| Gymnasium µs | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        table.append(
            f"| {row['env_id']} | {row['steps']} | {row['unwrapped_palaestra_us']:.1f} "
            f"| {row['unwrapped_gymnasium_us']:.1f} | {row['unwrapped_ratio']:.3f} "
            f"| {row['make_palaestra_us']:.1f} | {row['make_gymnasium_us']:.1f} "
            f"| {row['make_ratio']:.3f} |"
        )
    return rows, table


def main() -> int:
    """Run the suite; write the JSON lines and the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
    parser.add_argument("--only", help="run only the sections whose title contains this")
    parser.add_argument(
        "--before", metavar="REV", help="also measure commit REV (or a source tree), in turn"
    )
    parser.add_argument("--rounds", type=int, default=2, help="runs per tree with --before")
    parser.add_argument("--before-label", help="how the report names REV (default: REV)")
    parser.add_argument("--output", type=Path, default=HERE, help="where the report goes")
    args = parser.parse_args()
    sections = [s for s in SUITE if args.only is None or args.only in s.title]
    report = [
        "# Benchmark results",
        "",
        f"Generated by `python benchmarks/run_all.py` on {platform.platform()}, "
        f"{os.cpu_count()} CPU cores, Python {platform.python_version()}. Env-steps per "
        "second (median of repeats); in brackets the ratio to the section's reference, "
        "measured in the same run. The machine may be shared: compare ratios measured side "
        "by side, not rates across sections.",
        "",
    ]
    header_length = len(report)
    lines: list[dict] = []
    measured: dict[str, list[dict]] = {}
    comparisons: list[tuple[Section, dict, dict]] = []
    with tempfile.TemporaryDirectory() as scratch:
        before_root = None
        if args.before:
            given = Path(args.before)
            before_root = given if given.is_dir() else checkout(args.before, Path(scratch))
        before_modes = known_modes(before_root) if before_root else set()
        for section in sections:
            load_before = os.getloadavg()[0]
            if before_root is None:
                try:
                    results = run_section(section, args.quick)
                except subprocess.CalledProcessError as e:
                    # One broken section must not cost the whole report.
                    report += [f"## {section.title}", "", f"Failed: `{e.stderr[-500:]}`", ""]
                    print(f"FAILED: {section.title}", flush=True)
                    continue
            else:
                modes = section.arguments[section.arguments.index("--modes") + 1].split(",")
                shared = [mode for mode in modes if mode in before_modes]
                before_rounds, after_rounds = [], []
                for _ in range(args.rounds):
                    if shared:
                        try:
                            before = run_section(section, args.quick, before_root, shared)
                        except subprocess.CalledProcessError:
                            # Not measurable there (an env or mode it does not have).
                            shared = []
                        else:
                            before_rounds.append(before)
                    after_rounds.append(run_section(section, args.quick))
                results = _median_rows(after_rounds, section.reference)
                comparisons.append((section, _rates(before_rounds), _rates(after_rounds)))
            load_after = os.getloadavg()[0]
            lines += results
            measured[section.title] = results
            rows = [row for row in results if "steps_per_s" in row]
            settings = "".join(f" `{k}={v}`." for k, v in section.environment.items())
            report += [
                f"## {section.title}",
                "",
                f"Reference: `{section.reference}`.{settings} Machine load average (1 min) "
                f"before/after: {load_before:.1f}/{load_after:.1f} on {os.cpu_count()} cores.",
                "",
                markdown_table(rows, section.reference),
                "",
            ]
            print(f"done: {section.title}", flush=True)
    for title, arguments in SINGLE_ENV:
        if args.only is not None and args.only not in title:
            continue
        load_before = os.getloadavg()[0]
        rows, table = run_single_env(arguments, args.quick)
        lines += rows
        report += [
            f"## {title}",
            "",
            "Median over repeats alternating the two libraries; ratio = palaestra / Gymnasium "
            f"(below 1 is faster). Machine load average (1 min) before/after: {load_before:.1f}/"
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.",
            "",
            *table,
            "",
        ]
        print(f"done: {title}", flush=True)
    if any(title.startswith(DEFAULT_SECTION_PREFIX) for title in measured):
        report[header_length:header_length] = default_table(measured)
    if comparisons:
        report += before_after_table(comparisons, args.before_label or args.before)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in lines))
    (args.output / "RESULTS.md").write_text("\n".join(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
