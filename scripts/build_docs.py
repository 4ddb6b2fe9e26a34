"""Build the documentation site; also the MkDocs hook that generates its pages.

Run ``python scripts/build_docs.py`` (the same as ``mkdocs build --strict``) to build the site
into ``build/site``. ``mkdocs.yml`` loads this file as a hook: at build time it generates,
from the code itself so that nothing can drift,

- one page per environment family and per registered environment id (spaces, reward
  threshold, time limit, arguments from the signature and docstring, registered versions,
  batched support and measured speed from ``benchmarks/*.jsonl``),
- the API reference (one mkdocstrings entry per public name, grouped as in Gymnasium's
  documentation plus palaestra's own subsystems),
- one page per tutorial script in ``docs/tutorials/`` (its docstring and its code),
- the performance pages (tables and a plot from ``benchmarks/results.jsonl`` and
  ``benchmarks/mujoco_results.jsonl``),

and the navigation that lists them. Nothing generated is written into ``docs/``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import json
import os
import re
import subprocess
import sys
import warnings
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
IMAGES = DOCS / "images"
BENCHMARK_FILES = (
    ROOT / "benchmarks" / "quiet" / "results.jsonl",
    ROOT / "benchmarks" / "results.jsonl",
    ROOT / "benchmarks" / "mujoco_results.jsonl",
    ROOT / "benchmarks" / "ray_mode_results.jsonl",
)

# ---------------------------------------------------------------------------------------------
# Environment pages
# ---------------------------------------------------------------------------------------------

FAMILIES: dict[str, tuple[str, str]] = {
    "classic_control": (
        "Classic control",
        "The control problems of the RL textbooks. Pure NumPy; every one has a natively "
        "batched vector env (numpy, or numba-compiled when numba is installed).",
    ),
    "toy_text": (
        "Toy text",
        "Small discrete worlds with `ansi` and image rendering, natively batched.",
    ),
    "box2d": (
        "Box2D",
        'Physics on the `box2d` package (`pip install "palaestra[box2d]"`).',
    ),
    "mujoco": (
        "MuJoCo",
        "Locomotion and manipulation on models built by palaestra's own code, on the `mujoco` "
        'package (`pip install "palaestra[mujoco]"`), batched by a native stepper.',
    ),
    "atari": (
        "Atari",
        "The Atari 2600 games of the Arcade Learning Environment at ale-py's ids, on ale-py's "
        'emulator and ROMs (`pip install "palaestra[atari]"`).',
    ),
    "phys2d": (
        "phys2d (functional, JAX)",
        "Functional (`FuncEnv`) versions of classic-control tasks on JAX "
        '(`pip install "palaestra[jax]"`), in the `phys2d` namespace.',
    ),
    "tabular": (
        "tabular (functional, JAX)",
        "Functional (`FuncEnv`) versions of toy-text tasks on JAX, in the `tabular` namespace.",
    ),
    "legacy": (
        "Legacy ids",
        "Ids Gymnasium keeps registered only to explain where the environment went: `make` "
        "raises an error with the way forward. They are registered here for the same errors.",
    ),
}

_SECTION = re.compile(
    r"^(Args|Arguments|Raises|Returns|Example|Examples|Attributes|Note|Notes):\s*$"
)


@dataclass
class EnvInfo:
    """What an environment page shows, read from the registry and the env class."""

    env_id: str
    family: str
    spec: Any
    entry: Any
    make_error: str | None
    observation_space: str | None
    action_space: str | None
    metadata: dict[str, Any]
    # The id whose page describes this one: itself, or (Atari's legacy ids) its game's v5 id.
    home_id: str = ""

    @property
    def slug(self) -> str:
        """The page's file name (without ``.md``)."""
        return (self.home_id or self.env_id).replace("/", "_")

    @property
    def has_own_page(self) -> bool:
        """Whether this id gets a page of its own (else it is a row of its home's page)."""
        return self.home_id in ("", self.env_id)

    @property
    def page(self) -> str:
        """The page's path relative to ``docs/``."""
        return f"envs/{self.family}/{self.slug}.md"


def _family(entry_point: Any) -> str:
    if not isinstance(entry_point, str):
        return "legacy"
    parts = entry_point.split(":")[0].split(".")
    if len(parts) >= 3 and parts[:2] == ["palaestra", "envs"] and parts[2] in FAMILIES:
        return parts[2]
    return "legacy"


def _atari_game(spec: Any) -> str | None:
    """Return the ROM an Atari id plays, or ``None`` for an id of another family."""
    if _family(spec.entry_point) != "atari":
        return None
    return (spec.kwargs or {}).get("game")


def home_ids(registry: Any) -> dict[str, str]:
    """Map each id to the id whose page describes it.

    Every id has its own page except Atari's legacy ids (``Pong-v0``, ``PongNoFrameskip-v4``
    ...): one page per game, ``ALE/<Game>-v5``'s, lists them with their arguments, so the site
    has a page per game rather than four near-copies of it.

    Example:
        >>> import palaestra as gym
        >>> home_ids(gym.registry)["CartPole-v1"]
        'CartPole-v1'
    """
    v5_of_game = {
        _atari_game(spec): env_id
        for env_id, spec in registry.items()
        if _atari_game(spec) and spec.namespace == "ALE"
    }
    homes = {}
    for env_id, spec in registry.items():
        game = _atari_game(spec)
        homes[env_id] = v5_of_game.get(game, env_id) if game else env_id
    return homes


def _load_entry(entry_point: Any) -> Any:
    if not isinstance(entry_point, str):
        return entry_point
    module, _, name = entry_point.partition(":")
    return getattr(importlib.import_module(module), name)


def collect_envs() -> list[EnvInfo]:
    """Read every registered id: its spec, entry point, and spaces (by making it once).

    Returns:
        One :class:`EnvInfo` per registered id, in registration order.

    Example:
        >>> infos = collect_envs()  # doctest: +SKIP
    """
    import palaestra as gym

    infos = []
    homes = home_ids(gym.registry)
    for env_id, spec in gym.registry.items():
        entry = _load_entry(spec.entry_point)
        error = obs = act = None
        metadata: dict[str, Any] = {}
        if homes[env_id] != env_id:  # a row of its home's page: nothing to make
            infos.append(
                EnvInfo(
                    env_id,
                    _family(spec.entry_point),
                    spec,
                    entry,
                    None,
                    None,
                    None,
                    {},
                    homes[env_id],
                )
            )
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                env = gym.make(env_id)
            except Exception as exc:  # the page reports what make raises
                error = f"{type(exc).__name__}: {exc}"
            else:
                obs, act = repr(env.observation_space), repr(env.action_space)
                metadata = dict(env.metadata)
                env.close()
        infos.append(
            EnvInfo(env_id, _family(spec.entry_point), spec, entry, error, obs, act, metadata)
        )
    return infos


def _docstring_parts(obj: Any) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its prose and its ``Args`` descriptions."""
    doc = inspect.getdoc(obj) or ""
    prose: list[str] = []
    args: dict[str, str] = {}
    section = None
    current = None
    for line in doc.splitlines():
        match = _SECTION.match(line)
        if match:
            section = match.group(1)
            continue
        if section is None:
            prose.append(line)
        elif section in ("Args", "Arguments"):
            item = re.match(r"^    (\*{0,2}\w+)(?: \(.*?\))?:\s*(.*)$", line)
            if item:
                current = item.group(1).lstrip("*")
                args[current] = item.group(2)
            elif current and line.startswith("        "):
                args[current] += " " + line.strip()
    return _rst_to_md("\n".join(prose).strip()), {k: _rst_to_md(v) for k, v in args.items()}


def _rst_to_md(text: str) -> str:
    text = re.sub(r":\w+:`~?([^`]+)`", lambda m: f"`{m.group(1).split('.')[-1]}`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _sentences(text: str, pattern: str) -> list[str]:
    flat = " ".join(text.split())
    parts = re.split(r"(?<=[.;])\s+(?=[A-Z`])", flat)
    return [p for p in parts if re.search(pattern, p, re.IGNORECASE)]


def _argument_notes(entry: Any, arg_docs: dict[str, str], pattern: str) -> list[str]:
    """One line per constructor argument whose name matches ``pattern``: name, default, doc."""
    if not inspect.isclass(entry):
        return []
    notes = []
    for name, parameter in inspect.signature(entry).parameters.items():
        if re.search(pattern, name) and parameter.default is not inspect.Parameter.empty:
            meaning = arg_docs.get(name, "").rstrip(".")
            notes.append(f"`{name}={parameter.default!r}` (argument): {meaning}.")
    return notes


def _image_for(env_id: str) -> str | None:
    name = env_id.split("/")[-1].rsplit("-v", 1)[0]
    exact = IMAGES / f"{env_id.split('/')[-1]}.png"
    if exact.exists():
        return exact.name
    best = None
    for path in sorted(IMAGES.glob("*.png")):
        base = path.stem.rsplit("-v", 1)[0]
        if (name.startswith(base) or base.startswith(name)) and (
            best is None or len(base) > len(best.stem.rsplit("-v", 1)[0])
        ):
            best = path
    return best.name if best else None


def _reference_ratio(row: dict[str, Any]) -> str | None:
    """Return the row's ratio to its same-run reference, as reports print it (``"1.53"``)."""
    ratio = next((v for k, v in row.items() if k.startswith("ratio_to_")), None)
    return f"{ratio:.2f}" if isinstance(ratio, int | float) else None


def report_sections(report: Path) -> list[tuple[str, set[tuple[str, str, int, str]]]]:
    r"""Read a ``RESULTS.md`` report's sections: title and cells ``(env, mode, N, ratio)``.

    ``benchmarks/run_all.py`` writes one ``RESULTS.md`` section per benchmark section and the
    same rows, in the same order, to ``results.jsonl``; a cell reads ``107.5k (1.53x)``.

    Example:
        >>> text = "## CartPole\n\n| CartPole-v1 | N=8 |\n|---|---|\n| native | 1k (1.53x) |\n"
        >>> path = Path(__import__("tempfile").mkdtemp()) / "RESULTS.md"
        >>> _ = path.write_text(text)
        >>> report_sections(path)
        [('CartPole', {('CartPole-v1', 'native', 8, '1.53')})]
    """
    sections: list[tuple[str, set[tuple[str, str, int, str]]]] = []
    header: list[str] | None = None
    for line in report.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), set()))
            header = None
        elif sections and line.startswith("|") and not set(line) <= set("|-: "):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                continue
            for column, cell in zip(header[1:], cells[1:]):
                size, ratio = re.fullmatch(r"N=(\d+)", column), re.search(r"\(([\d.]+)x\)", cell)
                if size and cell not in ("", "—"):  # a reference-less table has no ratios
                    key = (header[0], cells[0], int(size.group(1)), ratio and ratio.group(1))
                    sections[-1][1].add(key)
        elif not line.strip():
            header = None
    return sections


def _run_label(marker: dict[str, Any], count: int) -> str:
    conditions = marker.get("conditions")
    if isinstance(conditions, dict) and "load_average_1min" in conditions:
        return f"run {count}, load average {conditions['load_average_1min']}"
    if marker.get("kind") == "note":
        return f"run {count}: {marker['what']}"
    return f"run {count}"


def _blocks(rows: list[tuple[int, dict[str, Any]]]) -> list[list[tuple[int, dict[str, Any]]]]:
    """Split a record's rows into blocks measured side by side.

    A block ends at a marker line, a change of env or reference, or a row whose (mode, N) the
    block already has.
    """
    blocks: list[list[tuple[int, dict[str, Any]]]] = []
    seen: set[Any] = set()
    previous: tuple[Any, ...] | None = None
    for number, row in rows:
        marker = "env_id" not in row
        reference = next((k for k in row if k.startswith("ratio_to_")), row.get("kind"))
        key = (row.get("mode", row.get("library")), row.get("num_envs"), row.get("kind"))
        here = (row.get("env_id"), reference)
        if marker or previous != here or key in seen or not blocks:
            blocks.append([])
            seen = set()
        previous = None if marker else here
        if not marker:
            seen.add(key)
            blocks[-1].append((number, row))
    return [block for block in blocks if block]


def _section_title(block: list[tuple[int, dict[str, Any]]], sections: list[Any]) -> str | None:
    """Return the title of the report section whose cells hold this block's rows, if any."""
    keys = {(r["env_id"], r.get("mode"), r.get("num_envs"), _reference_ratio(r)) for _, r in block}
    unrated = {(*key[:3], None) for key in keys}
    for wanted in (keys, unrated):
        title = next((title for title, cells in sections if wanted <= cells), None)
        if title is not None:
            return title
    return None


def _load_benchmarks() -> list[dict[str, Any]]:
    """Every benchmark row, with ``source`` (its file), ``run`` (which run) and ``block``.

    A block is a set of rows measured side by side (one table on the performance page). A
    record with marker lines (``conditions`` or a ``note``) holds one run per marker; the
    blocks of a ``run_all.py`` record are named by the section of the ``RESULTS.md`` beside it
    that holds exactly their numbers, else by their line numbers. So no table mixes rows of
    several runs without saying so.
    """
    rows: list[dict[str, Any]] = []
    for path in BENCHMARK_FILES:
        if not path.exists():
            continue
        source = path.relative_to(ROOT / "benchmarks").as_posix()
        numbered = [
            (n, json.loads(line))
            for n, line in enumerate(path.read_text().splitlines(), start=1)
            if line.strip()
        ]
        markers = [(n, r) for n, r in numbered if "conditions" in r or r.get("kind") == "note"]
        report = path.with_name("RESULTS.md")
        sections = report_sections(report) if report.exists() and not markers else []
        for index, block in enumerate(_blocks(numbered)):
            first, last = block[0][0], block[-1][0]
            run = [(n, r) for n, r in markers if n < first]
            label = (
                _run_label(run[-1][1], len(run))
                if run
                else _section_title(block, sections) or f"`{source}` lines {first}-{last}"
            )
            for _, row in block:
                rows.append({**row, "source": source, "run": label, "block": index})
    return rows


def _ratio(row: dict[str, Any]) -> str:
    ratios = [
        f"{v:.2f}x vs `{k[len('ratio_to_') :]}`" if k.startswith("ratio_to_") else f"{k} {v:.2f}x"
        for k, v in row.items()
        if (k.startswith("ratio_to_") or k.endswith("_ratio")) and isinstance(v, int | float)
    ]
    return ", ".join(ratios) or "—"


def _speed(row: dict[str, Any]) -> str:
    if "steps_per_s" in row:
        return f"{row['steps_per_s']:,} steps/s"
    timings = [f"{k[: -len('_us')]} {v} µs" for k, v in row.items() if k.endswith("_us")]
    if "us_per_step" in row:
        timings.insert(0, f"{row['us_per_step']} µs/step")
    return ", ".join(timings) or "—"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return f"`{value}`".replace("|", "\\|")


def _or_dash(value: Any) -> str:
    return "—" if value is None else str(value)


def _code(text: str) -> str:
    return f"```text\n{text}\n```"


def _versions(info: EnvInfo, infos: list[EnvInfo]) -> list[EnvInfo]:
    if _atari_game(info.spec):  # a game's page lists every id of that game
        same = [i for i in infos if _atari_game(i.spec) == _atari_game(info.spec)]
        return sorted(same, key=lambda i: (i.spec.namespace or "", i.env_id))
    key = (info.spec.namespace, info.spec.name)
    same = [i for i in infos if (i.spec.namespace, i.spec.name) == key]
    return sorted(same, key=lambda i: i.spec.version or 0)


def _link(from_page: str, to_page: str) -> str:
    """Return the relative link from one docs page to another."""
    import os.path

    return os.path.relpath(to_page, os.path.dirname(from_page)).replace(os.sep, "/")


def env_page(info: EnvInfo, infos: list[EnvInfo], speeds: list[dict[str, Any]]) -> str:
    """Write the markdown of one environment's page.

    Args:
        info: the environment.
        infos: every environment (for the version history).
        speeds: the benchmark rows.

    Returns:
        The page's markdown.

    Example:
        >>> env_page(collect_envs()[0], collect_envs(), [])  # doctest: +SKIP
    """
    spec = info.spec
    lines = [f"# {info.env_id}", ""]
    image = _image_for(info.env_id)
    if image:
        lines += [f"![{info.env_id}]({_link(info.page, 'images/' + image)}){{ width=360 }}", ""]
    entry_name = spec.entry_point if isinstance(spec.entry_point, str) else None
    prose, arg_docs = _docstring_parts(info.entry) if entry_name else ("", {})
    if info.make_error:
        lines += ["`make` raises:", "", _code(info.make_error), ""]
    if prose:
        lines += ["## Description", "", prose, ""]
    lines += ["## Summary", "", "| Property | Value |", "|---|---|"]
    lines.append(f'| Make | `gym.make("{info.env_id}")` |')
    if entry_name:
        lines.append(f"| Entry point | `{entry_name}` |")
    if info.observation_space:
        obs = " ".join(info.observation_space.split())
        act = " ".join(info.action_space.split())
        lines.append(f"| Observation space | `{obs if len(obs) < 90 else obs[:60] + ' ...'}` |")
        lines.append(f"| Action space | `{act}` |")
    lines.append(f"| Reward threshold | {_or_dash(spec.reward_threshold)} |")
    limit = spec.max_episode_steps
    lines.append(f"| Time limit | {f'{limit} steps (then truncated)' if limit else 'none'} |")
    if spec.kwargs:
        lines.append(f"| Registered arguments | `{spec.kwargs}` |")
    if info.metadata.get("render_modes") is not None:
        modes = ", ".join(f"`{m}`" for m in info.metadata["render_modes"])
        lines.append(f"| Render modes | {modes or '—'} |")
    vector = spec.vector_entry_point
    lines.append(
        "| Natively batched | "
        + (
            f"yes: `{vector}` (the default of `make_vec`)"
            if vector
            else "no (sync, async, pool, ray)"
        )
        + " |"
    )
    lines.append("")
    if info.observation_space and len(" ".join(info.observation_space.split())) >= 90:
        lines += ["Observation space in full:", "", _code(info.observation_space), ""]
    if entry_name:
        rewards = _sentences(prose, r"reward")
        ends = [
            s
            for s in _sentences(prose, r"terminat|truncat|episode end|ends? the episode|ends when")
            if not s.lower().startswith("reward")
        ]
        rewards += _argument_notes(info.entry, arg_docs, r"reward|cost|penalty")
        ends += _argument_notes(info.entry, arg_docs, r"^(?!.*reward).*(terminat|healthy)")
        if rewards:
            lines += ["## Rewards", "", *[f"- {s}" for s in rewards], ""]
        lines += ["## Episode end", ""]
        lines += [f"- {s}" for s in ends]
        lines.append(
            f"- Truncated by `TimeLimit` after {limit} steps."
            if limit
            else "- No time limit is registered."
        )
        lines.append("")
    if entry_name and inspect.isclass(info.entry):
        params = [p for n, p in inspect.signature(info.entry).parameters.items() if n != "self"]
        if params:
            lines += ["## Arguments", "", "| Argument | Default | Meaning |", "|---|---|---|"]
            for p in params:
                default = "" if p.default is inspect.Parameter.empty else f"`{p.default!r}`"
                name = p.name if p.kind is not p.VAR_KEYWORD else f"**{p.name}"
                meaning = arg_docs.get(p.name, "").replace("|", "\\|")
                lines.append(f"| `{name}` | {default.replace('|', chr(92) + '|')} | {meaning} |")
            lines += [
                "",
                'Pass them to `make`: `gym.make("' + info.env_id + '", argument=value)`.',
                "",
            ]
    lines += ["## Version history", ""]
    lines += [
        "| Id | Entry point | Time limit | Reward threshold | Arguments |",
        "|---|---|---|---|---|",
    ]
    for other in _versions(info, infos):
        ep = other.spec.entry_point if isinstance(other.spec.entry_point, str) else "(raises)"
        label = (
            f"**{other.env_id}**"
            if other is info
            else f"[{other.env_id}]({_link(info.page, other.page)})"
        )
        lines.append(
            f"| {label} | `{ep}` | {other.spec.max_episode_steps or '—'} | "
            f"{other.spec.reward_threshold if other.spec.reward_threshold is not None else '—'} | "
            f"`{other.spec.kwargs or {}}` |"
        )
    lines.append("")
    rows = [r for r in speeds if r["env_id"] == info.env_id]
    lines += ["## Measured speed", ""]
    if rows:
        lines += [
            "| Run | Mode | Sub-envs | Speed | Same-run ratio |",
            "|---|---|---|---|---|",
        ]
        for r in rows:
            run = f"{r.get('run', '—')} (`{r.get('source', '?')}`)".replace("|", "\\|")
            lines.append(
                f"| {run} | `{r.get('mode', r.get('library'))}` | {r.get('num_envs', 1)} | "
                f"{_speed(r)} | {_ratio(r)} |"
            )
        lines += [
            "",
            f"From `benchmarks/` (see [Performance]({_link(info.page, 'performance.md')})).",
        ]
    else:
        lines.append(
            "Not measured yet (see "
            f"[Performance]({_link(info.page, 'performance.md')}) for what is)."
        )
    lines.append("")
    return "\n".join(lines)


# The section of docs/guide/families.md that describes each family (its heading's anchor).
GUIDE_SECTIONS = {
    "classic_control": "classic-control",
    "toy_text": "toy-text",
    "box2d": "box2d",
    "mujoco": "mujoco",
    "atari": "atari",
    "phys2d": "the-functional-api",
    "tabular": "the-functional-api",
}


def family_page(family: str, members: list[EnvInfo]) -> str:
    r"""Write the markdown of an environment family's page: its ids, spaces and batching.

    Example:
        >>> family_page("legacy", [])[:16]
        '# Legacy ids\n\nId'
    """
    title, blurb = FAMILIES[family]
    essay = GUIDE_SECTIONS.get(family)
    lines = [
        f"# {title}",
        "",
        blurb
        + (f" How it is built: [the guide](../../guide/families.md#{essay})." if essay else ""),
        "",
        "| Id | Observation space | Action space | Batched |",
        "|---|---|---|---|",
    ]
    page = f"envs/{family}/index.md"
    for info in members:
        obs = " ".join((info.observation_space or "—").split())
        obs = obs if len(obs) < 50 else obs.split("(")[0] + "(...)"
        act = " ".join((info.action_space or "—").split())
        act = act if len(act) < 50 else act.split("(")[0] + "(...)"
        batched = "native" if info.spec.vector_entry_point else "—"
        spaces = f"`{obs}` | `{act}`"
        if info.make_error:
            spaces = f"`make` raises `{info.make_error.split(':')[0]}` | (see its page)"
        lines.append(f"| [{info.env_id}]({_link(page, info.page)}) | {spaces} | {batched} |")
    lines.append("")
    return "\n".join(lines)


def envs_index(by_family: dict[str, list[EnvInfo]]) -> str:
    """Write the markdown of the environments' overview page."""
    lines = [
        "# Environments",
        "",
        "Every registered id has a page, generated from the registry and the env class at "
        "build time. `palaestra.pprint_registry()` prints the same list.",
        "",
        "| Family | Ids |",
        "|---|---|",
    ]
    for family, members in by_family.items():
        lines.append(f"| [{FAMILIES[family][0]}]({family}/index.md) | {len(members)} |")
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# API reference
# ---------------------------------------------------------------------------------------------

REFERENCE: list[tuple[str, str, list[str]]] = [
    ("core", "Core: Env and Wrapper", ["palaestra", "palaestra.core"]),
    ("spaces", "Spaces", ["palaestra.spaces"]),
    ("registration", "Registration and make", ["palaestra.envs.registration", "palaestra.envs"]),
    (
        "vector",
        "Vector environments",
        [
            "palaestra.vector",
            "palaestra.vector.utils",
            "palaestra.vector.episodes",
            "palaestra.vector.contract",
        ],
    ),
    ("wrappers", "Wrappers", ["palaestra.wrappers"]),
    ("vector_wrappers", "Vector wrappers", ["palaestra.wrappers.vector"]),
    (
        "utils",
        "Utils, errors and logger",
        [
            "palaestra.utils",
            "palaestra.utils.seeding",
            "palaestra.utils.env_checker",
            "palaestra.utils.passive_env_checker",
            "palaestra.utils.play",
            "palaestra.utils.save_video",
            "palaestra.utils.performance",
            "palaestra.error",
            "palaestra.logger",
        ],
    ),
    (
        "env_classes",
        "Environment classes",
        [
            "palaestra.envs.classic_control",
            "palaestra.envs.toy_text",
            "palaestra.envs.box2d",
            "palaestra.envs.mujoco",
        ],
    ),
    ("functional", "Functional environments", ["palaestra.experimental.functional"]),
    ("native", "Native batching", ["palaestra.vector.native"]),
    (
        "pool",
        "The worker pool and the process layer",
        ["palaestra.vector.pool", "palaestra.vector.processes"],
    ),
    ("ray", "The ray mode", ["palaestra.vector.ray"]),
    ("compat", "Interop (compat)", ["palaestra.compat"]),
    ("train", "Training", ["palaestra.train"]),
]


def public_names(module_name: str) -> list[str]:
    """List a module's public names: its ``__all__``, else what it defines without ``_``.

    Example:
        >>> public_names("palaestra.spaces")[:3]
        ['Space', 'Box', 'Discrete']
    """
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    if "__dir__" in vars(module):  # members loaded lazily, on first access
        return [name for name in dir(module) if not name.startswith("_")]
    found = []
    for name, value in vars(module).items():
        if name.startswith("_") or inspect.ismodule(value):
            continue
        if getattr(value, "__module__", module_name) == module_name or name.isupper():
            found.append(name)
    return found


def _defining_path(value: Any) -> str | None:
    """``module.qualname`` where a class or function is defined, if that path finds it."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not (inspect.isclass(value) or inspect.isfunction(value)) or not module or not qualname:
        return None
    if "<" in qualname:
        return None
    try:
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return None
    return f"{module}.{qualname}" if target is value else None


def reference_entries() -> Iterator[tuple[str, str, str, str, str | None]]:
    """Every public name: ``(page slug, module, public path, kind, defining path)``.

    ``kind`` is ``"object"`` (a class or function rendered by mkdocstrings at its defining
    path), ``"module"`` or ``"value"``.

    Example:
        >>> next(reference_entries())[:3]
        ('core', 'palaestra', 'palaestra.Env')
    """
    from palaestra.error import DependencyNotInstalled

    for slug, _title, modules in REFERENCE:
        for module_name in modules:
            module = importlib.import_module(module_name)
            for name in public_names(module_name):
                try:
                    value = getattr(module, name)
                except (ImportError, DependencyNotInstalled):  # an optional dependency is
                    continue  # missing (the docs extra brings the envs' own): no entry
                path = f"{module_name}.{name}"
                if inspect.ismodule(value):
                    yield slug, module_name, path, "module", value.__name__
                    continue
                defining = _defining_path(value)
                yield slug, module_name, path, ("object" if defining else "value"), defining


def _module_page(module: str) -> str | None:
    for slug, _title, modules in REFERENCE:
        if module in modules:
            return f"reference/{slug}.md"
    return None


def reference_pages() -> dict[str, str]:
    """Write every API reference page, keyed by its path relative to ``docs/``.

    Example:
        >>> sorted(reference_pages())[0]  # doctest: +SKIP
        'reference/compat.md'
    """
    rendered: dict[str, str] = {}  # defining path -> page and anchor where it is rendered
    pages: dict[str, list[str]] = {}
    titles = {slug: title for slug, title, _ in REFERENCE}
    current_module: dict[str, str] = {}
    for slug, module, path, kind, defining in reference_entries():
        page = f"reference/{slug}.md"
        lines = pages.setdefault(page, [f"# {titles[slug]}", ""])
        if current_module.get(slug) != module:
            current_module[slug] = module
            doc = (inspect.getdoc(importlib.import_module(module)) or "").split("\n\n")[0]
            lines += [f"## `{module}` {{ #{module} }}", "", _rst_to_md(doc), ""]
        anchor = f'<a id="{path}"></a>'
        if kind == "module":
            target = _module_page(defining or "")
            where = f"[its page]({_link(page, target)})" if target else f"`{defining}`"
            lines += [
                anchor,
                "",
                f"### `{path}` {{ #{path}--module }}",
                "",
                f"The module `{defining}`: see {where}.",
                "",
            ]
        elif kind == "value":
            value = getattr(importlib.import_module(module), path.rsplit(".", 1)[1])
            shown = " ".join(repr(value).split())
            shown = shown if len(shown) < 160 else shown[:150] + " ..."
            lines += [
                anchor,
                "",
                f"### `{path}` {{ #{path}--value }}",
                "",
                f"A `{type(value).__name__}`: `{shown.replace('`', chr(39))}`",
                "",
            ]
        elif defining in rendered:
            lines += [
                anchor,
                "",
                f"### `{path}` {{ #{path}--alias }}",
                "",
                f"The same object as [`{defining}`]({_link(page, rendered[defining])}).",
                "",
            ]
        else:
            rendered[defining] = f"{page}#{defining}"
            if defining != path:
                lines += [anchor, "", f"`{path}` is defined as `{defining}`:", ""]
            lines += [f"::: {defining}", "    options:", "      heading_level: 3", ""]
    _remember_documented(reference_entries())
    return {page: "\n".join(lines) for page, lines in pages.items()}


def _remember_documented(entries: Iterator[tuple[str, str, str, str, str | None]]) -> None:
    """Fill ``DOCUMENTED`` from the reference's entries (short names only where unique)."""
    shorts: dict[str, set[str]] = defaultdict(set)
    for _slug, _module, path, kind, defining in entries:
        if kind != "object" or defining is None:
            continue
        DOCUMENTED[path] = defining
        shorts[path.rsplit(".", 1)[1]].add(defining)
    for short, targets in shorts.items():
        if len(targets) == 1:
            DOCUMENTED.setdefault(short, targets.pop())


def reference_index() -> str:
    """Write the markdown of the API reference's overview page."""
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by mkdocstrings: every name in a module's `__all__` "
        "has an entry, under its import path.",
        "",
        "| Page | Modules |",
        "|---|---|",
    ]
    for slug, title, modules in REFERENCE:
        lines.append(f"| [{title}]({slug}.md) | {', '.join(f'`{m}`' for m in modules)} |")
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Tutorials
# ---------------------------------------------------------------------------------------------


def tutorial_scripts() -> list[Path]:
    """List the tutorial scripts, in the order of their numbered names.

    Example:
        >>> tutorial_scripts()[0].suffix
        '.py'
    """
    return sorted((DOCS / "tutorials").glob("[0-9]*.py"))


def tutorial_page(script: Path) -> str:
    """Write a tutorial's page: the script's docstring as prose, then the script itself."""
    source = script.read_text()
    title, _, rest = (ast.get_docstring(ast.parse(source)) or script.stem).partition("\n")
    module_doc = f"# {title.rstrip('.')}\n{rest}"
    body = source.split('"""', 2)[2].lstrip("\n")
    return (
        f"{module_doc}\n\n## The script\n\n"
        f"Run it: `python docs/tutorials/{script.name}`. The test suite runs it too "
        f"(`tests/docs/test_tutorials.py`).\n\n```python\n{body}```\n"
    )


def _title(markdown: str) -> str:
    return markdown.splitlines()[0].lstrip("# ").strip().replace("`", "")


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

CLI_EXAMPLES = """\
```bash
palaestra list                                        # the registered ids
palaestra run CartPole-v1 --episodes 3 --seed 0       # random rollouts: return, length, steps/s
palaestra train CartPole-v1                           # PPO with the env's tuned preset
palaestra train Pendulum-v1 --algo sac --steps 20000  # another algorithm, another budget
palaestra train CartPole-v1 --set learning_rate=3e-4  # override one hyper-parameter
palaestra train --resume runs/CartPole-v1-ppo-s0      # continue a run (after Ctrl-C, say)
palaestra eval runs/CartPole-v1-ppo-s0 --episodes 20  # deterministic evaluation
palaestra record CartPole-v1 --episodes 2 --out cartpole.mp4
palaestra check examples/inventory_env.py:InventoryEnv
palaestra bench CartPole-v1 --num-envs 8,64 --json    # steps/s beside Gymnasium
```"""


def _subcommands() -> dict[str, Any]:
    import argparse

    from palaestra.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"": parser, **action.choices}


def _option_row(action: Any) -> str:
    import argparse

    names = ", ".join(action.option_strings) or (action.metavar or action.dest)
    if action.metavar and action.option_strings:
        names += f" {action.metavar}"
    default = action.default
    unset = default is None or default is False or default == [] or default == argparse.SUPPRESS
    shown = "" if unset or not action.option_strings else f"`{default!r}`"
    meaning = (action.help or "").replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")
    if action.choices and not isinstance(action.choices, dict):
        meaning += " (one of " + ", ".join(f"`{c}`" for c in action.choices) + ")"
    return f"| `{names}` | {shown} | {meaning} |"


def cli_page() -> str:
    """Write the command-line page from ``palaestra``'s own argument parser.

    Every command, its usage line, description and options come from
    ``palaestra.cli.build_parser()``, so the page cannot drift from ``--help``.

    Example:
        >>> "## `palaestra train`" in cli_page() and "--resume DIR" in cli_page()
        True
    """
    import argparse

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps usage lines to the terminal's width
    try:
        lines = [
            "# Command line",
            "",
            "`palaestra COMMAND [options]`, installed with the package. This page is generated "
            "from the command's own argument parser (what `palaestra COMMAND --help` prints). "
            "Bad input (an unknown id, device or mode, an `--out` that is a file) gets one line "
            "on stderr and exit status 2.",
            "",
            CLI_EXAMPLES,
            "",
        ]
        for name, parser in _subcommands().items():
            title = f"palaestra {name}".strip()
            lines += [f"## `{title}`", ""]
            if parser.description:
                lines += [_rst_to_md(parser.description), ""]
            lines += ["```text", parser.format_usage().strip(), "```", ""]
            rows = [
                _option_row(a)
                for a in parser._actions
                if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
            ]
            if rows:
                lines += ["| Argument | Default | Meaning |", "|---|---|---|", *rows, ""]
        return "\n".join(lines)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


# ---------------------------------------------------------------------------------------------
# Performance
# ---------------------------------------------------------------------------------------------


def performance_page(rows: list[dict[str, Any]]) -> str:
    """Write the performance page: one table per block of rows measured side by side.

    Each table is titled with the run (or report section) its rows come from and names its
    record file and reference, so rows of different runs never share a table unlabelled.
    """
    lines = [
        "# Performance",
        "",
        "Generated at build time from the benchmark records in `benchmarks/`: "
        "`quiet/results.jsonl` and `results.jsonl` (written by `python benchmarks/run_all.py`, "
        "with the report `RESULTS.md` beside each), `mujoco_results.jsonl` "
        "(`python benchmarks/mujoco_speed.py`) and `ray_mode_results.jsonl` "
        "(`python benchmarks/ray_mode.py`). Every ratio is against a reference measured in the "
        "same run on the same machine; the absolute numbers come from a shared 2-core machine "
        "and move with its load, which the run labels give where the record has it. "
        "`palaestra bench ENV_ID` measures any registered env the same way on yours.",
        "",
        "![Steps per second against the number of sub-envs](images/performance_cartpole.png)",
        "",
        "![MuJoCo steps per second by mode](images/performance_mujoco.png)",
        "",
    ]
    blocks: dict[tuple[str, Any], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        blocks[(r["source"], r.get("block", 0))].append(r)
    hidden = ("source", "kind", "run", "block")
    for (source, _block), members in blocks.items():
        first = members[0]
        ref = next((k[len("ratio_to_") :] for k in first if k.startswith("ratio_to_")), "")
        columns = tuple(dict.fromkeys(k for r in members for k in r if k not in hidden))
        against = f", against `{ref}`" if ref else ""
        run = first.get("run", source)
        lines += [
            f"## {run if first['env_id'] in run else first['env_id'] + ': ' + run}",
            "",
            f"`benchmarks/{source}`{against}.",
            "",
            "| " + " | ".join(columns) + " |",
            "|" + "---|" * len(columns),
        ]
        for r in members:
            lines.append("| " + " | ".join(_cell(r.get(c, "—")) for c in columns) + " |")
        lines.append("")
    return "\n".join(lines)


def performance_plot(rows: list[dict[str, Any]]) -> bytes:
    r"""Draw a PNG: CartPole-v1 steps per second against sub-envs, one line per mode.

    Example:
        >>> performance_plot([])[:4]
        b'\x89PNG'
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, dict[int, int]] = defaultdict(dict)
    for r in rows:
        if r["env_id"] == "CartPole-v1" and "steps_per_s" in r and "ratio_to_gym-native" in r:
            series[r["mode"]][r["num_envs"]] = r["steps_per_s"]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for mode, points in sorted(series.items()):
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], marker="o", label=mode)
    ax.set(xscale="log", yscale="log", xlabel="sub-envs (N)", ylabel="env-steps per second")
    ax.set_title("CartPole-v1, native batched vs Gymnasium's native vector env")
    if series:
        ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def mujoco_plot(rows: list[dict[str, Any]]) -> bytes:
    r"""Draw a PNG: MuJoCo vector envs' steps per second at the smallest N, by mode and env.

    Example:
        >>> mujoco_plot([])[:4]
        b'\x89PNG'
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    vector = [r for r in rows if r.get("kind") == "vector" and "steps_per_s" in r]
    smallest = min((r["num_envs"] for r in vector), default=0)
    vector = [r for r in vector if r["num_envs"] == smallest]  # one bar per mode and env
    envs = sorted({r["env_id"] for r in vector})
    modes = sorted({r["mode"] for r in vector})
    fig, ax = plt.subplots(figsize=(9, 4), dpi=100)
    width = 0.8 / max(len(modes), 1)
    for k, mode in enumerate(modes):
        values = {r["env_id"]: r["steps_per_s"] for r in vector if r["mode"] == mode}
        xs = [i + k * width for i, env_id in enumerate(envs) if env_id in values]
        ax.bar(xs, [values[e] for e in envs if e in values], width=width, label=mode)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(envs))], envs, rotation=30, ha="right")
    ax.set(yscale="log", ylabel="env-steps per second")
    ax.set_title(f"MuJoCo vector envs, N={smallest}, one run")
    if modes:
        ax.legend(fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# MkDocs hook
# ---------------------------------------------------------------------------------------------


GUIDE: list[tuple[str, str]] = [
    ("Installing and the extras", "guide/install.md"),
    ("The environment families", "guide/families.md"),
    ("Vector environments", "guide/vector.md"),
    ("Wrappers, rendering and play", "guide/wrappers.md"),
    ("Training", "guide/training.md"),
    ("Interop", "guide/interop.md"),
]
"""The hand-written guide pages, in reading order (the README links to them)."""


def generated_pages() -> tuple[dict[str, str | bytes], list[Any]]:
    """Every generated file (path relative to ``docs/`` -> content) and the site's nav.

    Example:
        >>> files, nav = generated_pages()  # doctest: +SKIP
    """
    infos = collect_envs()
    speeds = _load_benchmarks()
    files: dict[str, str | bytes] = {}
    by_family: dict[str, list[EnvInfo]] = {f: [] for f in FAMILIES}
    for info in infos:
        by_family[info.family].append(info)
        if info.has_own_page:
            files[info.page] = env_page(info, infos, speeds)
    by_family = {f: m for f, m in by_family.items() if m}
    files["envs/index.md"] = envs_index(by_family)
    env_nav: list[Any] = ["envs/index.md"]
    for family, members in by_family.items():
        files[f"envs/{family}/index.md"] = family_page(family, members)
        env_nav.append(
            {
                FAMILIES[family][0]: [
                    f"envs/{family}/index.md",
                    *[{m.env_id: m.page} for m in members if m.has_own_page],
                ]
            }
        )
    reference = reference_pages()
    files.update(reference)
    files["reference/index.md"] = reference_index()
    tutorial_nav: list[Any] = ["tutorials/index.md"]
    listing = [
        "# Tutorials",
        "",
        "Each tutorial is a script in `docs/tutorials/` that the test suite runs (the ones "
        "that train are shortened there: each script says which numbers to raise for a full "
        "run). A tutorial's page is its script.",
        "",
    ]
    for script in tutorial_scripts():
        page = f"tutorials/{script.stem}.md"
        files[page] = tutorial_page(script)
        tutorial_nav.append({_title(files[page]): page})
        listing.append(f"1. [{_title(files[page])}]({script.stem}.md)")
    files["tutorials/index.md"] = "\n".join([*listing, ""])
    files["cli.md"] = cli_page()
    files["performance.md"] = performance_page(speeds)
    files["images/performance_cartpole.png"] = performance_plot(speeds)
    files["images/performance_mujoco.png"] = mujoco_plot(speeds)
    nav = [
        {"Home": "index.md"},
        {"Guide": [{title: page} for title, page in GUIDE]},
        {"Environments": env_nav},
        {"Tutorials": tutorial_nav},
        {"Command line": "cli.md"},
        {"Native batching": "native_batching.md"},
        {
            "API reference": [
                "reference/index.md",
                *[{t: f"reference/{s}.md"} for s, t, _ in REFERENCE],
            ]
        },
        {"Performance": "performance.md"},
        {"Drop-in details": "dropin.md"},
        {"About these docs": "about.md"},
    ]
    return files, nav


_GENERATED: dict[str, str | bytes] = {}


def on_config(config: Any) -> Any:
    """MkDocs hook: generate the pages and set the navigation that lists them."""
    files, nav = generated_pages()
    _GENERATED.clear()
    _GENERATED.update(files)
    config["nav"] = nav
    return config


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for path, content in _GENERATED.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files


def _griffe_extension_base() -> type:
    try:
        import griffe
    except ImportError:  # only the docs build needs griffe
        return object
    return griffe.Extension


_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const):`(~?)([^`]+)`")


# Public path (``palaestra.wrappers.TimeLimit``) and unique short name (``TimeLimit``) ->
# the defining path the reference renders it under; filled by ``reference_pages``.
DOCUMENTED: dict[str, str] = {}


def _scope_resolve(obj: Any, target: str) -> str | None:
    while obj is not None:
        try:
            return obj.resolve(target)
        except Exception:  # griffe's NameResolutionError, or a scope it cannot search
            obj = getattr(obj, "parent", None)
    return None


def _resolve(obj: Any, target: str) -> str:
    """Return the path the site documents ``target`` under, as seen from ``obj``."""
    found = target if "." in target else _scope_resolve(obj, target)
    found = found or target
    return DOCUMENTED.get(found, DOCUMENTED.get(target, found))


def sphinx_roles_to_autorefs(text: str, obj: Any = None) -> str:
    r"""Return ``text`` with each Sphinx role as a cross-reference mkdocs-autorefs renders.

    ``:class:`~a.b.C``` shows ``C`` and ``:class:`a.b.C``` shows ``a.b.C`` (Sphinx's rules); a
    bare name is resolved from ``obj``'s scope. The reference is *optional*: a target the site
    does not document (``numpy.random.Generator``) renders as code instead of failing the
    strict build.

    Example:
        >>> sphinx_roles_to_autorefs(":class:`~palaestra.spaces.Box`")
        '<autoref identifier="palaestra.spaces.Box" optional><code>Box</code></autoref>'
    """

    def replace(match: re.Match[str]) -> str:
        short, target = match.groups()
        target = target.strip()
        shown = target.rsplit(".", 1)[-1] if short else target
        identifier = _resolve(obj, target)
        return f'<autoref identifier="{identifier}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(replace, text)


class ExampleSections(_griffe_extension_base()):  # type: ignore[misc]
    r"""A griffe extension: docstrings written for Sphinx read as mkdocstrings expects.

    palaestra's docstrings title their doctests ``Example:``, which griffe's Google parser
    would otherwise render as Markdown prose (where ``[[0.5]]`` reads as a link), and name
    other objects with Sphinx roles (``:class:`TimeLimit```), which Markdown shows as raw
    text: the sections are renamed ``Examples:`` and the roles become cross-references.

    Example:
        >>> ExampleSections.rename("Args:\n    x: y.\n\nExample:\n    >>> 1\n")[-24:]
        'y.\n\nExamples:\n    >>> 1\n'
    """

    @staticmethod
    def rename(text: str) -> str:
        """``text`` with every ``Example:`` section title replaced by ``Examples:``."""
        return re.sub(r"(?m)^(\s*)Example:\s*$", r"\1Examples:", text)

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        """Rename the sections of each object's docstring before it is parsed."""
        if obj.docstring is not None:
            obj.docstring.value = self.rename(obj.docstring.value)

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        """Rewrite the roles once the whole package is loaded, so that names resolve."""
        if not DOCUMENTED:  # griffe loads this file as a module of its own: fill it here too
            _remember_documented(reference_entries())
        seen: set[int] = set()
        stack = [pkg]
        while stack:
            obj = stack.pop()
            if id(obj) in seen or obj.is_alias:
                continue
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = sphinx_roles_to_autorefs(obj.docstring.value, obj)
            stack.extend(obj.members.values())


def main(argv: list[str] | None = None) -> int:
    """Build the site with warnings as errors: ``mkdocs build --strict`` plus ``argv``."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", *(argv or [])]
    return subprocess.call(command, cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
