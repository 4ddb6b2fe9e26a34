"""``pprint_registry``: the registered ids as a table, grouped by namespace."""

from __future__ import annotations

import re
from collections import defaultdict

from palaestra.envs.registration._registry import registry
from palaestra.envs.registration._specs import EnvSpec


def pprint_registry(
    print_registry: dict[str, EnvSpec] = registry,
    *,
    num_cols: int = 3,
    exclude_namespaces: list[str] | None = None,
    disable_print: bool = False,
) -> str | None:
    """Print the registered ids grouped by namespace, ``num_cols`` per row.

    Args:
        print_registry: the specs to print (the global registry by default).
        num_cols: ids per row.
        exclude_namespaces: namespaces to leave out.
        disable_print: return the text instead of printing it.

    Returns:
        The text when ``disable_print`` is true, else ``None``.

    Example:
        >>> specs = {i: EnvSpec(i, "game.snake:Snake") for i in ("Snake-v0", "Snake-v1")}
        >>> pprint_registry(specs, num_cols=1)
        ===== snake =====
        Snake-v0
        Snake-v1
    """
    grouped: dict[str | None, list[str]] = defaultdict(list)
    for env_spec in print_registry.values():
        grouped[_display_namespace(env_spec)].append(env_spec.id)
    width = max((len(s.name) for s in print_registry.values()), default=0)
    excluded = exclude_namespaces or []
    text = "\n".join(
        _namespace_block(ns, env_ids, width, num_cols)
        for ns, env_ids in grouped.items()
        if ns not in excluded
    )
    if disable_print:
        return text
    print(text)
    return None


def _display_namespace(env_spec: EnvSpec) -> str | None:
    """Return the id's namespace, else a package guessed from a string entry point.

    Without either (a callable entry point), envs are grouped under ``None``; with a string
    entry point too short to name a package, under their own name.

    ``"palaestra.envs.classic_control.cartpole:CartPoleEnv"`` gives ``classic_control``;
    ``"plugin.module:Env"`` gives ``module``.
    """
    if env_spec.namespace is not None or not isinstance(env_spec.entry_point, str):
        return env_spec.namespace
    module_path = re.sub(r":\w+", "", env_spec.entry_point).split(".")
    if len(module_path) >= 3:
        return module_path[2]
    if len(module_path) == 2:
        return module_path[1]
    return env_spec.name


def _namespace_block(ns: str | None, env_ids: list[str], width: int, num_cols: int) -> str:
    ordered = sorted(env_ids)
    rows = (
        " ".join(env_id.ljust(width) for env_id in ordered[start : start + num_cols]).rstrip(" ")
        for start in range(0, len(ordered), num_cols)
    )
    return f"{'=' * 5} {ns} {'=' * 5}\n" + "\n".join(rows)
