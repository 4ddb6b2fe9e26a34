"""Messages name palaestra's API as the user's code imports it (docs/dropin.md)."""

from __future__ import annotations

import sys
import types

import pytest

import palaestra
from palaestra.utils.library_name import library_name, not_an_env_message
from palaestra.utils.passive_env_checker import check_action_space

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils import passive_env_checker as gymnasium_checker  # noqa: E402


@pytest.fixture
def standing_in_for_gymnasium(monkeypatch):
    """This process with palaestra in Gymnasium's place (``import gymnasium`` gives palaestra)."""
    monkeypatch.setitem(sys.modules, "gymnasium", palaestra)


def message_of(check, *args) -> str:
    with pytest.raises(TypeError) as raised:
        check(*args)
    return str(raised.value)


def test_palaestra_is_the_name_when_gymnasium_is_gymnasium():
    assert library_name() == "palaestra"
    assert "`palaestra.spaces.Space`" in message_of(check_action_space, "left")


def test_gymnasium_is_the_name_when_palaestra_stands_in_for_it(standing_in_for_gymnasium):
    assert library_name() == "gymnasium"


def test_a_module_forwarding_to_palaestra_also_stands_in(monkeypatch):
    forwarding = types.ModuleType("gymnasium")
    forwarding.Env = palaestra.Env
    monkeypatch.setitem(sys.modules, "gymnasium", forwarding)
    assert library_name() == "gymnasium"


def test_standing_in_the_space_message_is_gymnasiums_verbatim(standing_in_for_gymnasium):
    theirs = message_of(gymnasium_checker.check_action_space, "left")
    assert message_of(check_action_space, "left") == theirs


def test_standing_in_the_env_message_starts_with_gymnasiums_text(standing_in_for_gymnasium):
    assert not_an_env_message(3).startswith(
        "The environment must inherit from the gymnasium.Env class, actual class: <class 'int'>. "
        "See https://gymnasium.farama.org/introduction/create_custom_env/ for more info."
    )


def test_a_gymnasium_env_class_gets_the_pointer_to_the_adapter():
    class Foreign(gymnasium.Env):
        pass

    assert "palaestra.compat.from_gymnasium(env)" in not_an_env_message(Foreign())
