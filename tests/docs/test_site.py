"""The documentation site: a strict build, resolving links, a page for every env and name."""

import importlib.util
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import palaestra as gym

ROOT = Path(__file__).resolve().parents[2]


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_docs", ROOT / "scripts" / "build_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_docs", module)
    spec.loader.exec_module(module)
    return module


builder = _load_builder()


class _Page(HTMLParser):
    """The ids an HTML page defines and the links (href/src) it makes."""

    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        for key in ("href", "src"):
            if attributes.get(key):
                self.links.append(attributes[key])


def _parse(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def pages(site):
    return {path: _parse(path) for path in site.rglob("*.html")}


def _target(site, page_path, link):
    """The file a relative link of ``page_path`` points to, and its fragment."""
    parts = urlsplit(link)
    path = unquote(parts.path)
    if not path:
        return page_path, parts.fragment
    base = site if path.startswith("/") else page_path.parent
    target = (base / path.lstrip("/")).resolve()
    if target.is_dir():
        target = target / "index.html"
    return target, parts.fragment


def _internal(link):
    parts = urlsplit(link)
    return not parts.scheme and not parts.netloc and not link.startswith(("mailto:", "javascript:"))


def test_site_builds_with_warnings_as_errors(build_result):
    returncode, output, _ = build_result
    assert returncode == 0, output
    assert "WARNING" not in output, output


def test_every_internal_link_resolves_to_a_file(site, pages):
    broken = []
    for path, page in pages.items():
        if path.name == "404.html":  # served at any depth, links are site-absolute
            continue
        for link in filter(_internal, page.links):
            target, _ = _target(site, path, link)
            if not target.exists():
                broken.append(f"{path.relative_to(site)} -> {link}")
    assert broken == []


def test_every_internal_link_fragment_names_an_id_of_its_page(site, pages):
    broken = []
    for path, page in pages.items():
        if path.name == "404.html":
            continue
        for link in filter(_internal, page.links):
            target, fragment = _target(site, path, link)
            if fragment and target.suffix == ".html" and target.exists():
                ids = pages[target].ids if target in pages else _parse(target).ids
                if fragment not in ids:
                    broken.append(f"{path.relative_to(site)} -> {link}")
    assert broken == []


def test_every_registered_env_id_has_a_page_that_names_it(site, builtin_ids):
    # Its own page, or (Atari's legacy ids) its game's v5 page, which lists it.
    homes = builder.home_ids(gym.registry)
    missing = []
    for env_id, spec in gym.registry.items():
        if env_id not in builtin_ids:
            continue
        family = builder._family(spec.entry_point)
        page = site / "envs" / family / homes[env_id].replace("/", "_") / "index.html"
        if not page.exists() or f">{env_id}<" not in page.read_text(encoding="utf-8"):
            missing.append(env_id)
    assert missing == []


def test_every_env_family_page_links_each_of_its_ids(site, builtin_ids):
    for family in builder.FAMILIES:
        members = [
            i
            for i, s in gym.registry.items()
            if i in builtin_ids and builder._family(s.entry_point) == family
        ]
        if not members:
            continue
        text = (site / "envs" / family / "index.html").read_text(encoding="utf-8")
        homes = builder.home_ids(gym.registry)
        for env_id in members:
            assert f'href="{homes[env_id].replace("/", "_")}/"' in text, env_id


def test_an_atari_legacy_id_is_a_row_of_its_games_v5_page():
    pytest.importorskip("ale_py")
    homes = builder.home_ids(gym.registry)
    assert homes["PongNoFrameskip-v4"] == homes["Pong-v0"] == "ALE/Pong-v5"
    assert homes["ALE/Pong-v5"] == "ALE/Pong-v5"


def test_every_public_name_has_a_reference_entry(site, pages):
    missing = []
    for slug, _module, path, kind, defining in builder.reference_entries():
        page = site / "reference" / slug / "index.html"
        ids = pages[page.resolve()].ids if page.resolve() in pages else set()
        anchors = {path} | ({defining} if kind == "object" else set())
        if not ids & anchors:
            missing.append(path)
    assert missing == []


def test_reference_covers_the_gymnasium_groups_and_palaestras_own():
    slugs = {slug for slug, _title, _modules in builder.REFERENCE}
    gymnasium_groups = {"core", "spaces", "registration", "vector", "wrappers", "utils"}
    ours = {"native", "pool", "ray", "compat", "train"}
    assert gymnasium_groups | ours <= slugs


def test_a_class_entry_renders_its_docstring_and_signature(site):
    text = (site / "reference" / "spaces" / "index.html").read_text(encoding="utf-8")
    assert 'id="palaestra.spaces.box.Box"' in text
    assert "sample" in text and "low" in text


def test_every_tutorial_script_has_a_page_with_its_code(site):
    for script in builder.tutorial_scripts():
        page = site / "tutorials" / script.stem / "index.html"
        assert page.exists(), script.name
        first_import = next(
            line for line in script.read_text().splitlines() if line.startswith("import")
        )
        assert first_import.split()[1] in page.read_text(encoding="utf-8"), script.name


def test_performance_page_shows_the_plot_and_a_table_row_per_measurement(site):
    text = (site / "performance" / "index.html").read_text(encoding="utf-8")
    assert (site / "images" / "performance_cartpole.png").read_bytes()[:4] == b"\x89PNG"
    assert 'src="../images/performance_cartpole.png"' in text
    assert (site / "images" / "performance_mujoco.png").read_bytes()[:4] == b"\x89PNG"
    assert 'src="../images/performance_mujoco.png"' in text
    rows = builder._load_benchmarks()
    assert text.count("<tr>") >= len(rows)


def test_env_page_shows_spaces_threshold_time_limit_and_batching():
    infos = builder.collect_envs()
    info = next(i for i in infos if i.env_id == "CartPole-v1")
    page = builder.env_page(info, infos, [])
    assert "| Action space | `Discrete(2)` |" in page
    assert "| Reward threshold | 475.0 |" in page
    assert "| Time limit | 500 steps (then truncated) |" in page
    assert "CartPoleVectorEnv" in page
    assert "| `sutton_barto_reward` | `False` |" in page
    assert "[CartPole-v0](CartPole-v0.md)" in page


def test_env_page_of_an_id_that_cannot_be_made_shows_makes_error():
    infos = builder.collect_envs()
    info = next(i for i in infos if i.env_id == "Ant-v2")
    assert "`make` raises:" in builder.env_page(info, infos, [])
    assert "ImportError" in builder.env_page(info, infos, [])


def test_env_page_measured_speed_comes_from_the_benchmark_rows():
    infos = builder.collect_envs()
    info = next(i for i in infos if i.env_id == "Pendulum-v1")
    row = {"env_id": "Pendulum-v1", "mode": "native", "num_envs": 8, "steps_per_s": 1234}
    row.update({"ratio_to_gym-sync": 2.5, "run": "run 2, load average 1.5", "source": "x.jsonl"})
    page = builder.env_page(info, infos, [row])
    assert (
        "| run 2, load average 1.5 (`x.jsonl`) | `native` | 8 | 1,234 steps/s "
        "| 2.50x vs `gym-sync` |"
    ) in page


def test_performance_page_tabulates_rows_of_any_shape_by_their_columns():
    rows = [
        {"env_id": "CartPole-v1", "steps": 1000, "make_palaestra_us": 2.5},
        {"env_id": "CartPole-v1", "mode": "pool", "num_envs": 8, "steps_per_s": 5000},
    ]
    rows[1]["ratio_to_gym-sync"] = 1.5
    for block, row in enumerate(rows):
        row.update({"source": "x.jsonl", "run": f"run {block + 1}", "block": block})
    page = builder.performance_page(rows)
    assert "| env_id | steps | make_palaestra_us |" in page
    assert "| `CartPole-v1` | 1,000 | 2.5 |" in page
    assert "## CartPole-v1: run 2\n\n`benchmarks/x.jsonl`, against `gym-sync`." in page
    assert "| `CartPole-v1` | `pool` | 8 | 5,000 | 1.5 |" in page


def _record(tmp_path, monkeypatch, lines, report=None):
    """Point the builder at one record ``benchmarks/results.jsonl`` (and its report)."""
    path = tmp_path / "benchmarks" / "results.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if report is not None:
        (path.parent / "RESULTS.md").write_text(report)
    monkeypatch.setattr(builder, "BENCHMARK_FILES", (path,))
    monkeypatch.setattr(builder, "ROOT", tmp_path)


def _cartpole(mode, steps, ratio):
    return {"env_id": "CartPole-v1", "mode": mode, "num_envs": 8, "steps_per_s": steps,
            "ratio_to_gym-native": ratio}  # fmt: skip


def test_rows_of_two_runs_of_one_mode_and_size_land_in_two_labelled_blocks(tmp_path, monkeypatch):
    # Before: CartPole native N=8 was listed as both 1.53x and 0.93x in one unlabelled table.
    report = (
        "## CartPole: native\n\n| CartPole-v1 | N=8 |\n|---|---|\n| native | 1k (1.53x) |\n"
        "| gym-native | 1k (1.00x) |\n\n## CartPole again\n\n| CartPole-v1 | N=8 |\n|---|---|\n"
        "| native | 1k (0.93x) |\n| gym-native | 1k (1.00x) |\n"
    )
    lines = [_cartpole("native", 1531, 1.531), _cartpole("gym-native", 1000, 1.0)]
    lines += [_cartpole("native", 930, 0.928), _cartpole("gym-native", 1000, 1.0)]
    _record(tmp_path, monkeypatch, lines, report)
    rows = builder._load_benchmarks()
    assert [(r["block"], r["run"]) for r in rows] == [
        (0, "CartPole: native"),
        (0, "CartPole: native"),
        (1, "CartPole again"),
        (1, "CartPole again"),
    ]


def test_a_record_with_condition_markers_labels_each_run_with_its_load(tmp_path, monkeypatch):
    lines = [{"conditions": {"load_average_1min": 1.2}}, _cartpole("native", 1531, 1.531)]
    lines += [{"conditions": {"load_average_1min": 9.6}}, _cartpole("native", 930, 0.928)]
    _record(tmp_path, monkeypatch, lines)
    assert [r["run"] for r in builder._load_benchmarks()] == [
        "run 1, load average 1.2",
        "run 2, load average 9.6",
    ]


def test_rows_no_report_section_holds_are_labelled_by_their_lines(tmp_path, monkeypatch):
    lines = [_cartpole("native", 1531, 1.531), _cartpole("native", 930, 0.928)]
    _record(tmp_path, monkeypatch, lines)
    assert [r["run"] for r in builder._load_benchmarks()] == [
        "`results.jsonl` lines 1-1",
        "`results.jsonl` lines 2-2",
    ]


def test_every_speed_table_on_the_performance_page_is_titled_by_its_run(site):
    text = (site / "performance" / "index.html").read_text(encoding="utf-8")
    for row in builder._load_benchmarks():
        assert row["run"].split("`")[0].strip() in text, row


def test_the_command_line_page_documents_every_command_and_option(site):
    from palaestra.cli import COMMANDS, build_parser

    text = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f'<h2 id="palaestra-{command}"><code>palaestra {command}</code>' in text, command
    for option in ("--resume", "--episodes", "--stochastic", "--json", "--import-path"):
        assert option in text, option
    assert build_parser().prog == "palaestra"


_RAW_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):(?:<code>|`)")


def test_no_page_shows_a_sphinx_role_as_raw_text(site, pages):
    # Before: 285 roles such as :class:`TimeLimit` showed as raw text in the API reference.
    raw = [
        f"{path.relative_to(site)}: {match.group(0)}"
        for path in pages
        for match in _RAW_ROLE.finditer(path.read_text(encoding="utf-8"))
    ]
    assert raw == []


def test_a_sphinx_role_to_a_documented_class_renders_as_a_link_to_its_entry(site):
    # palaestra.wrappers.common.TimeLimit's own docstring names :class:`OrderEnforcing`.
    text = (site / "reference" / "wrappers" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*href="[^"]*#palaestra\.', text)


def test_a_role_to_an_undocumented_target_renders_as_code_not_as_a_role():
    text = builder.sphinx_roles_to_autorefs(":class:`numpy.random.Generator`")
    assert text == (
        '<autoref identifier="numpy.random.Generator" optional>'
        "<code>numpy.random.Generator</code></autoref>"
    )


def test_env_page_lists_reward_and_termination_arguments_of_a_mujoco_env():
    infos = builder.collect_envs()
    info = next(i for i in infos if i.env_id == "Hopper-v5")
    page = builder.env_page(info, infos, [])
    rewards = page[page.index("## Rewards") : page.index("## Episode end")]
    ends = page[page.index("## Episode end") : page.index("## Arguments")]
    assert "`healthy_reward=1.0` (argument)" in rewards
    assert "`terminate_when_unhealthy=True` (argument)" in ends
    assert "healthy_reward" not in ends


def test_the_page_generators_examples_hold():
    import doctest

    result = doctest.testmod(builder, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
