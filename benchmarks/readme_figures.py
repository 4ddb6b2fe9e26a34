"""The README's speed table, generated from the benchmark records (no hand-copied figures).

Reads the records the benchmark scripts write (``benchmarks/*.jsonl`` and
``benchmarks/quiet/results.jsonl``) and prints the table of the README's "Speed" section: one
row per family or claim, each a same-run ratio (or the range of them over the ids measured)
taken from the newest measurement of each id, size and mode in its record. ``--write``
replaces the table in ``README.md``; ``--check`` exits with status 1 when the README's table
differs from the records' (the test suite runs the same comparison, so a record rewritten
without regenerating the README fails it).

Usage (from the repository root)::

    python benchmarks/readme_figures.py            # print the table
    python benchmarks/readme_figures.py --write    # put it into README.md
    python benchmarks/readme_figures.py --check    # status 1 if README.md is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
README = ROOT / "README.md"
# The table's first line: where the README's generated table starts (it ends at a blank line).
HEADER = "| measured side by side (table made by `benchmarks/readme_figures.py`) | ratio | record |"

Row = dict[str, Any]


def records(name: str) -> list[Row]:
    """Return the JSON rows of ``benchmarks/<name>`` in file order (none if it is missing).

    Example:
        >>> records("no_such_record.jsonl")
        []
    """
    path = BENCHMARKS / name
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def newest(rows: Iterable[Row], key: Callable[[Row], Any]) -> dict[Any, Row]:
    """Return the last row of each ``key(row)`` (a record appends newer runs at its end).

    Example:
        >>> newest([{"id": "a", "v": 1}, {"id": "a", "v": 2}], lambda row: row["id"])
        {'a': {'id': 'a', 'v': 2}}
    """
    found: dict[Any, Row] = {}
    for row in rows:
        found[key(row)] = row
    return found


def span(values: Iterable[float]) -> str:
    """Return ``"1.20x"`` for one value, ``"1.20-3.50x"`` for the range of several.

    Example:
        >>> span([2.0]), span([3.456, 1.2, 2.0]), span([])
        ('2.00x', '1.20-3.46x', '-')
    """
    ordered = sorted(values)
    if not ordered:
        return "-"
    low, high = ordered[0], ordered[-1]
    return f"{low:.2f}x" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}x"


def _ratios_by_size(rows: dict[Any, Row], field: str, sizes: list[int]) -> str:
    """The range over ids of ``field`` at each size, joined by `` / ``."""
    return " / ".join(
        span(row[field] for (_, n), row in rows.items() if n == size) for size in sizes
    )


def _ids(rows: dict[Any, Row]) -> int:
    return len({env_id for env_id, _ in rows})


def classic_control() -> list[str] | None:
    """Native ``make_vec`` against Gymnasium's ``make_vec`` on the quiet machine."""
    field = "ratio_to_gym-default"
    rows = newest(
        (r for r in records("quiet/results.jsonl") if r.get("mode") == "default" and field in r),
        lambda r: (r["env_id"], r["num_envs"]),
    )
    if not rows:
        return None
    sizes = sorted({n for _, n in rows})
    return [
        f"classic control, `make_vec(id, n)` vs Gymnasium's, n = "
        f"{' / '.join(map(str, sizes))} ({_ids(rows)} ids, a quiet machine)",
        _ratios_by_size(rows, field, sizes),
        "`quiet/results.jsonl`",
    ]


def toy_text() -> list[str] | None:
    """Native ``make_vec`` against Gymnasium's default (sync) ``make_vec``, and monotonicity."""
    lines = records("toy_text_results.jsonl")
    rows = newest(
        (r for r in lines if r.get("kind") == "step" and r.get("mode") == "palaestra"),
        lambda r: (r["env_id"], r["num_envs"]),
    )
    if not rows:
        return None
    sizes = [n for n in (1, 64, 1024) if any(size == n for _, size in rows)]
    blackjack = rows.get(("Blackjack-v1", 1024))
    monotonic = newest((r for r in lines if r.get("kind") == "monotonic"), lambda r: r["env_id"])
    holding = sum(1 for r in monotonic.values() if r["holds"])
    notes = [f"never cheaper per step as n doubles: {holding} of {len(monotonic)} ids"]
    if blackjack is not None:
        notes.insert(0, f"Blackjack at 1024: {blackjack['ratio_to_gym']:.2f}x")
    return [
        f"toy text, `make_vec(id, n)` vs Gymnasium's, n = {' / '.join(map(str, sizes))} "
        f"({_ids(rows)} ids)",
        f"{_ratios_by_size(rows, 'ratio_to_gym', sizes)} ({'; '.join(notes)})",
        "`toy_text_results.jsonl`",
    ]


def mujoco() -> list[str] | None:
    """The native MuJoCo batch against EnvPool and Gymnasium's sync and async vector envs."""
    rows = newest(
        (
            r
            for r in records("mujoco_results.jsonl")
            if r.get("kind") == "vector" and r.get("mode") == "native"
        ),
        lambda r: (r["env_id"], r["num_envs"]),
    )
    if not rows:
        return None
    sizes = sorted({n for _, n in rows})
    references = [("envpool", "EnvPool"), ("gym-sync", "sync"), ("gym-async", "async")]
    present = [
        (key, name)
        for key, name in references
        if any(f"ratio_to_{key}" in r for r in rows.values())
    ]
    cells = []
    for size in sizes:
        at_size = [r for (_, n), r in rows.items() if n == size]
        parts = [
            f"{span(r[f'ratio_to_{key}'] for r in at_size if f'ratio_to_{key}' in r)} {name}"
            for key, name in present
        ]
        cells.append(f"n = {size}: {', '.join(parts)}")
    return [
        f"MuJoCo, `make_vec(id, n)` vs EnvPool and Gymnasium's sync and async ({_ids(rows)} ids)",
        "; ".join(cells),
        "`mujoco_results.jsonl`",
    ]


def ray_mode() -> list[str] | None:
    """Ray mode against sync on a 2 ms env, and its CartPole step cost against the pool's."""
    rows = newest(
        (r for r in records("ray_mode_results.jsonl") if r.get("kind") == "ratio"),
        lambda r: r["what"],
    )
    over_sync = [r for what, r in rows.items() if "N=2," in what and ": ray steps/s over" in what]
    over_pool = [
        r for what, r in rows.items() if what.startswith("CartPole") and ": ray us/" in what
    ]
    if not over_sync and not over_pool:
        return None
    parts = []
    if over_sync:
        parts.append(f"{span([over_sync[-1]['ratio']])} sync (2 ms steps, n = 2, 2 workers)")
    if over_pool:
        parts.append(f"a CartPole step {span([over_pool[-1]['ratio']])} the pool's cost")
    return ["Ray mode", "; ".join(parts), "`ray_mode_results.jsonl`"]


def atari() -> list[str] | None:
    """One Atari env (raw, preprocessed, 8 in sync) against Gymnasium's."""
    rows = newest(
        (r for r in records("atari_results.jsonl") if r.get("kind") == "atari_single"),
        lambda r: (r["env_id"], r["setting"]),
    )
    if not rows:
        return None
    settings = list(dict.fromkeys(setting for _, setting in rows))
    cells = [
        f"{setting} {span(r['ratio'] for (_, s), r in rows.items() if s == setting)}"
        for setting in settings
    ]
    return [
        f"Atari, palaestra's env vs Gymnasium's (time ratio, below 1 is faster; {_ids(rows)} ids)",
        ", ".join(cells),
        "`atari_results.jsonl`",
    ]


def start_up() -> list[str] | None:
    """``import palaestra`` against ``import gymnasium``."""
    rows = [r for r in records("startup_results.jsonl") if r.get("kind") == "import"]
    if not rows:
        return None
    return [
        "start-up, `import palaestra` vs `import gymnasium` (wall time)",
        span([rows[-1]["speedup_wall"]]),
        "`startup_results.jsonl`",
    ]


# The README's rows (it stays within 200 lines); Atari and start-up have their own pages.
SECTIONS = (classic_control, toy_text, mujoco, ray_mode)


def table() -> str:
    """Return the README's speed table (its header line first, no trailing blank line)."""
    lines = [HEADER, "|---|---|---|"]
    for section in SECTIONS:
        cells = section()
        if cells is not None:
            lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


def replace_table(readme: str, new_table: str) -> str:
    """Return ``readme`` with its generated table (from :data:`HEADER` to a blank line) replaced.

    Raises:
        ValueError: if ``readme`` has no line starting the generated table.

    Example:
        >>> old = "\\n".join(["intro", HEADER, "| old |", "", "rest"])
        >>> replace_table(old, "\\n".join([HEADER, "| new |"])).split("\\n")[2:]
        ['| new |', '', 'rest']
    """
    lines = readme.split("\n")
    if HEADER not in lines:
        raise ValueError(
            f"README.md has no line {HEADER!r} starting the speed table; put that line where "
            "the table belongs, then run benchmarks/readme_figures.py --write."
        )
    start = lines.index(HEADER)
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return "\n".join([*lines[:start], new_table, *lines[end:]])


def main(argv: list[str] | None = None) -> int:
    """Print the table, or write it into the README (``--write``) or compare (``--check``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="replace the table in README.md")
    group.add_argument("--check", action="store_true", help="status 1 if README.md is stale")
    args = parser.parse_args(argv)
    generated = table()
    if not (args.write or args.check):
        print(generated)
        return 0
    readme = README.read_text()
    updated = replace_table(readme, generated)
    if args.check:
        if updated != readme:
            print(
                "README.md's speed table differs from the records; run "
                "python benchmarks/readme_figures.py --write",
                file=sys.stderr,
            )
            return 1
        return 0
    README.write_text(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
