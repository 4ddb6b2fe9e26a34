"""palaestra offers every module, public name, signature and id that Gymnasium 1.4 does.

"Public names" of a Gymnasium module are the classes and functions it defines itself (or its
``__all__``); names it merely imports are not part of its surface. The Box2D and MuJoCo
suites have their own tests and are compared there.
"""

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import warnings

import gymnasium
import pytest

import palaestra

OWN_SUITES = ("gymnasium.envs.box2d", "gymnasium.envs.mujoco")


def _gymnasium_modules():
    names = ["gymnasium"]
    for info in pkgutil.walk_packages(gymnasium.__path__, "gymnasium."):
        if not info.name.startswith(OWN_SUITES) and "._" not in info.name:
            names.append(info.name)
    return sorted(names)


GYMNASIUM_MODULES = _gymnasium_modules()


def _import_reference(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return importlib.import_module(name)
        except (ImportError, gymnasium.error.DependencyNotInstalled) as error:
            # e.g. Gymnasium's save_video needs moviepy: there is no reference to compare with.
            pytest.skip(f"the reference module needs an optional package: {error}")


def _ours(name):
    return name.replace("gymnasium", "palaestra", 1)


def _public_names(module):
    if hasattr(module, "__all__"):
        return sorted(module.__all__)
    return sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    )


def _parameters(function):
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [name for name, p in signature.parameters.items() if p.kind not in variadic]


@pytest.mark.parametrize("name", GYMNASIUM_MODULES)
def test_module_exists(name):
    importlib.import_module(_ours(name))


@pytest.mark.parametrize("name", GYMNASIUM_MODULES)
def test_module_has_gymnasiums_public_names(name):
    reference, ours = _import_reference(name), importlib.import_module(_ours(name))
    assert [n for n in _public_names(reference) if not hasattr(ours, n)] == []


@pytest.mark.parametrize("name", GYMNASIUM_MODULES)
def test_public_callables_accept_gymnasiums_parameters(name):
    reference, ours = _import_reference(name), importlib.import_module(_ours(name))
    mismatches = []
    for public in _public_names(reference):
        theirs, mine = getattr(reference, public, None), getattr(ours, public, None)
        if mine is None:
            continue
        pairs = [(public, theirs, mine)]
        if inspect.isclass(theirs):
            pairs = [
                (f"{public}.{attr}", value, getattr(mine, attr, None))
                for attr, value in vars(theirs).items()
                if callable(value) and (not attr.startswith("_") or attr == "__init__")
            ]
        for label, their_function, my_function in pairs:
            expected = _parameters(their_function)
            got = _parameters(my_function) if my_function is not None else []
            if expected is not None and got is not None and got[: len(expected)] != expected:
                mismatches.append((label, expected, got))
    assert mismatches == []


@pytest.mark.parametrize("name", GYMNASIUM_MODULES)
def test_classes_keep_gymnasiums_bases(name):
    reference, ours = _import_reference(name), importlib.import_module(_ours(name))
    missing = {}
    for public in _public_names(reference):
        theirs, mine = getattr(reference, public, None), getattr(ours, public, None)
        if inspect.isclass(theirs) and inspect.isclass(mine):
            our_bases = {base.__name__ for base in mine.__mro__}
            lost = [b.__name__ for b in theirs.__mro__[1:] if b.__name__ not in our_bases]
            lost = [b for b in lost if b not in ("Generic", "Protocol")]
            if lost:
                missing[public] = lost
    assert missing == {}


def test_every_gymnasium_id_is_registered_except_the_box2d_and_mujoco_suites():
    def suite(spec):
        entry = spec.entry_point if isinstance(spec.entry_point, str) else ""
        return entry.startswith(OWN_SUITES)

    # Gymnasium's own ids: those a fresh ``import gymnasium`` registers (in this process,
    # other libraries add theirs at run time: palaestra.compat's tests, RLlib's env runner).
    script = "import json, gymnasium; print(json.dumps(sorted(gymnasium.registry)))"
    own = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    expected = {
        env_id
        for env_id in json.loads(own.splitlines()[-1])
        if not suite(gymnasium.registry[env_id])
    }
    assert sorted(expected - set(palaestra.registry)) == []


def test_submodules_are_attributes_after_importing_the_package():
    # A fresh interpreter, so nothing has been imported on the way.
    script = (
        "import importlib, sys, palaestra\n"
        "missing = []\n"
        "for name in sys.argv[1:]:\n"
        "    obj = palaestra\n"
        "    for part in name.split('.')[1:]:\n"
        "        obj = getattr(obj, part, None)\n"
        "        if obj is None:\n"
        "            missing.append(name); break\n"
        "print(missing)\n"
    )
    names = [_ours(name) for name in GYMNASIUM_MODULES if name != "gymnasium"]
    result = subprocess.run(
        [sys.executable, "-c", script, *names], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
