"""The autoreset mode is read in one function, ``palaestra.vector.episodes.autoreset_mode``."""

from __future__ import annotations

import ast
import functools
import pathlib
import warnings

import pytest

import palaestra
from palaestra.vector import AutoresetMode, PoolVectorEnv, SyncVectorEnv
from palaestra.vector.episodes import autoreset_mode

PACKAGE = pathlib.Path(palaestra.__file__).parent

# Every module asks autoreset_mode(), except these, each for its reason.
EXEMPT = {
    # the one reader itself
    "vector/episodes.py",
    # rollout() and the presence check also run on Gymnasium's vector envs, whose mode is
    # Gymnasium's enum, which autoreset_mode() rightly refuses
    "vector/contract.py",
}
MODULES = sorted(
    str(path.relative_to(PACKAGE))
    for path in PACKAGE.rglob("*.py")
    if str(path.relative_to(PACKAGE)) not in EXEMPT
)


def _direct_reads(source: str) -> list[int]:
    """Lines that read a metadata's ``["autoreset_mode"]``, ``.get("autoreset_mode")`` or
    test ``"autoreset_mode" in metadata`` (writes such as ``{"autoreset_mode": mode}`` and
    keyword routing such as ``"autoreset_mode" in vector_kwargs`` are allowed)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        key = container = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key, container = node.slice, node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            key, container = node.args[0], node.func.value
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            key, container = node.left, node.comparators[0]
        if (
            isinstance(key, ast.Constant)
            and key.value == "autoreset_mode"
            and "metadata" in ast.unparse(container)
        ):
            lines.append(node.lineno)
    return lines


def _sync_group(num_envs: int, mode: object = None) -> SyncVectorEnv:
    envs = SyncVectorEnv([lambda: palaestra.make("CartPole-v1")] * num_envs)
    if mode is None:
        del envs.metadata["autoreset_mode"]
    else:
        envs.metadata["autoreset_mode"] = mode
    return envs


def test_every_module_reads_the_mode_only_through_autoreset_mode():
    readers = {name: _direct_reads((PACKAGE / name).read_text()) for name in MODULES}
    assert {name: lines for name, lines in readers.items() if lines} == {}


def test_the_scanner_finds_each_kind_of_direct_read():
    source = (
        'a = env.metadata["autoreset_mode"]\n'
        'b = env.metadata.get("autoreset_mode", None)\n'
        'c = "autoreset_mode" not in env.metadata\n'
        'metadata = {"autoreset_mode": a}\n'
        'd = "autoreset_mode" in vector_kwargs\n'
    )
    assert _direct_reads(source) == [1, 2, 3]


def test_non_strict_reading_warns_gymnasiums_make_vec_text_for_a_missing_mode():
    envs = _sync_group(1)
    with pytest.warns(UserWarning, match=r"is missing AutoresetMode metadata, metadata=\{"):
        assert autoreset_mode(envs, strict=False) is AutoresetMode.NEXT_STEP


def test_non_strict_reading_warns_gymnasiums_make_vec_text_for_a_mode_of_another_type():
    envs = _sync_group(1, "NextStep")
    with pytest.warns(
        UserWarning,
        match=r"metadata\['autoreset_mode'\] is not an instance of AutoresetMode, <class 'str'>",
    ):
        assert autoreset_mode(envs, strict=False) is AutoresetMode.NEXT_STEP


def test_strict_reading_rejects_a_mode_of_another_type():
    with pytest.raises(TypeError, match="got <class 'str'> \\('NextStep'\\)"):
        autoreset_mode(_sync_group(1, "NextStep"))


def test_pool_takes_the_mode_of_a_vector_env_fn_through_autoreset_mode():
    envs = PoolVectorEnv(
        vector_env_fn=functools.partial(_sync_group, mode=AutoresetMode.SAME_STEP),
        num_envs=2,
        num_workers=1,
    )
    try:
        assert envs.autoreset_mode is AutoresetMode.SAME_STEP
    finally:
        envs.close()


def test_pool_rejects_a_vector_env_fn_declaring_a_mode_that_is_not_an_autoreset_mode():
    with pytest.raises(TypeError, match=r"Expected env.metadata\['autoreset_mode'\]"):
        PoolVectorEnv(vector_env_fn=functools.partial(_sync_group, mode="SameStep"), num_envs=2)


def test_pool_assumes_next_step_after_a_warning_for_a_vector_env_fn_without_a_mode():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = PoolVectorEnv(vector_env_fn=_sync_group, num_envs=2, num_workers=1)
    try:
        assert envs.autoreset_mode is AutoresetMode.NEXT_STEP
        assert any("missing `autoreset_mode` metadata key" in str(w.message) for w in caught)
    finally:
        envs.close()
