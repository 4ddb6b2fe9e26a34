"""palaestra's modules import one another without a cycle, type-checking imports included.

The graph has an edge ``a -> b`` for every ``import``/``from ... import`` at module level of
``a`` (inside ``if TYPE_CHECKING:`` and ``try:`` blocks too, not inside functions) that names
module ``b`` of palaestra. Importing a submodule also runs its package's ``__init__``; that
implicit edge is left out, as in every static import graph.

``palaestra.train`` is held to more: no cycle even counting the imports made inside
functions, and its base layer (``palaestra.train.core``) imports no module above it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import palaestra

PACKAGE_DIR = Path(palaestra.__file__).parent


def module_files() -> dict[str, tuple[Path, bool]]:
    """Every module of palaestra: dotted name -> (file, whether it is a package)."""
    modules = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        modules[".".join(parts)] = (path, is_package)
    return modules


def module_level_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    statements = list(tree.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, ast.Import | ast.ImportFrom):
            yield statement
        elif isinstance(statement, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody"):
                statements.extend(getattr(statement, block, None) or [])
            for handler in getattr(statement, "handlers", None) or []:
                statements.extend(handler.body)


def every_import(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, the ones inside functions and classes too."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def imported_modules(
    name: str, path: Path, is_package: bool, modules: dict, walk: Any = None
) -> set[str]:
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    statements = (walk or module_level_imports)(ast.parse(path.read_text(encoding="utf-8")))
    for statement in statements:
        if isinstance(statement, ast.Import):
            found.update(alias.name for alias in statement.names if alias.name in modules)
            continue
        source = statement.module or ""
        if statement.level:
            parents = package.split(".")[: len(package.split(".")) - statement.level + 1]
            source = ".".join([*parents, *([statement.module] if statement.module else [])])
        for alias in statement.names:
            if f"{source}.{alias.name}" in modules:
                found.add(f"{source}.{alias.name}")
            elif source in modules:
                found.add(source)
    found.discard(name)
    return found


def import_graph(walk: Any = None) -> dict[str, set[str]]:
    modules = module_files()
    return {
        name: imported_modules(name, path, is_package, modules, walk)
        for name, (path, is_package) in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = lowlink[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                lowlink[node] = min(lowlink[node], lowlink[successor])
            elif successor in on_stack:
                lowlink[node] = min(lowlink[node], index[successor])
        if lowlink[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


@pytest.fixture(scope="module")
def graph():
    return import_graph()


@pytest.fixture(scope="module")
def train_graph():
    """The import graph of ``palaestra.train`` counting the imports inside functions."""
    full = import_graph(walk=every_import)
    return {
        module: {target for target in targets if target.startswith("palaestra.train")}
        for module, targets in full.items()
        if module.startswith("palaestra.train")
    }


def test_the_walk_sees_type_checking_imports(graph):
    assert "palaestra.env_spec" in graph["palaestra.core"]


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_palaestra_has_no_module_level_import_cycle(graph):
    found = cycles(graph)
    edges = [{module: sorted(graph[module] & set(found_)) for module in found_} for found_ in found]
    assert found == [], f"import cycles, with their edges: {edges}"


@pytest.mark.parametrize(
    ("module", "allowed"),
    [
        ("palaestra.env_spec", set()),
        ("palaestra.vector.episodes", {"palaestra.logger"}),
    ],
)
def test_leaf_modules_import_nothing_else_of_palaestra(graph, module, allowed):
    assert graph[module] <= allowed


def test_the_spaces_import_the_vector_helpers_in_one_place():
    mentions = [
        path.name
        for path in (PACKAGE_DIR / "spaces").glob("*.py")
        if "from palaestra.vector import utils" in path.read_text(encoding="utf-8")
    ]
    assert mentions == ["_vector_utils.py"]


def test_the_full_walk_sees_imports_inside_functions(train_graph):
    # ppo_gradients imports its numba kernels inside a function only.
    assert "palaestra.train._ppo_kernels" in train_graph["palaestra.train.ppo_gradients"]


def test_train_has_no_import_cycle_counting_imports_inside_functions(train_graph):
    found = cycles(train_graph)
    edges = [
        {module: sorted(train_graph[module] & set(found_)) for module in found_} for found_ in found
    ]
    assert found == [], f"import cycles in palaestra.train, with their edges: {edges}"


ABOVE_THE_BASE_LAYER = {
    "palaestra.train.ppo",
    "palaestra.train.dqn",
    "palaestra.train.sac",
    "palaestra.train.reinforce",
    "palaestra.train.offpolicy",
    "palaestra.train.onpolicy",
    "palaestra.train.runner",
    "palaestra.train.evaluation",
    "palaestra.train.metrics",
}


def test_the_train_base_layer_imports_no_algorithm_and_not_the_runner(train_graph):
    core = {module: targets for module, targets in train_graph.items() if ".train.core" in module}
    assert len(core) >= 6
    assert {module: targets & ABOVE_THE_BASE_LAYER for module, targets in core.items()} == {
        module: set() for module in core
    }


def test_the_runner_and_checkpoints_name_no_algorithm_module(train_graph):
    algorithms = {"palaestra.train.ppo", "palaestra.train.dqn", "palaestra.train.sac"}
    for module in ("palaestra.train.runner", "palaestra.train.checkpoint"):
        assert train_graph[module] & (algorithms | {"palaestra.train.reinforce"}) == set()
