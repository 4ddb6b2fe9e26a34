"""RecordEpisodeStatistics adds each episode's return, length and time to the last info."""

import pytest

import palaestra
from palaestra.wrappers import RecordEpisodeStatistics
from tests.fixtures.counting_env import make_counting_env


def recorded_env(gym=palaestra, terminate_at=3, **kwargs):
    return gym.wrappers.RecordEpisodeStatistics(
        make_counting_env(gym, terminate_at=terminate_at), **kwargs
    )


def finish_episode(env, action=1):
    env.reset()
    while True:
        *_, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info


def test_the_last_info_holds_return_and_length():
    info = finish_episode(recorded_env())
    assert (info["episode"]["r"], info["episode"]["l"]) == (4.5, 3)


def test_the_episode_time_is_a_non_negative_float_rounded_to_microseconds():
    seconds = finish_episode(recorded_env())["episode"]["t"]
    assert isinstance(seconds, float)
    assert seconds >= 0
    assert round(seconds, 6) == seconds


def test_infos_before_the_end_are_untouched():
    env = recorded_env()
    env.reset()
    assert env.step(1)[-1] == {"count": 1}


def test_a_custom_stats_key_is_used():
    info = finish_episode(recorded_env(stats_key="stats"))
    assert "episode" not in info
    assert info["stats"]["l"] == 3


def test_queues_keep_the_last_buffer_length_episodes():
    env = recorded_env(buffer_length=2)
    for action in (0, 1, 2):
        finish_episode(env, action)
    assert list(env.return_queue) == [4.5, 7.5]
    assert list(env.length_queue) == [3, 3]
    assert len(env.time_queue) == 2
    assert env.episode_count == 3


def test_reset_restarts_the_counts():
    env = recorded_env(terminate_at=5)
    env.reset()
    env.step(1)
    env.reset()
    assert (env.episode_returns, env.episode_lengths) == (0.0, 0)


def test_an_info_already_using_the_key_is_an_error():
    env = recorded_env(stats_key="count")
    env.reset()
    env.step(1)
    env.step(1)
    with pytest.raises(AssertionError, match="already has the key 'count'"):
        env.step(1)


def test_records_its_constructor_arguments():
    env = RecordEpisodeStatistics(make_counting_env(palaestra), buffer_length=5, stats_key="s")
    assert env._saved_kwargs == {"buffer_length": 5, "stats_key": "s"}


def test_return_and_length_match_gymnasium():
    gymnasium = pytest.importorskip("gymnasium")
    ours, theirs = recorded_env(palaestra, 4), recorded_env(gymnasium, 4)
    for action in (2, 0, 1):
        our_stats = finish_episode(ours, action)["episode"]
        their_stats = finish_episode(theirs, action)["episode"]
        assert (our_stats["r"], our_stats["l"]) == (their_stats["r"], their_stats["l"])
    assert list(ours.return_queue) == list(theirs.return_queue)
    assert list(ours.length_queue) == list(theirs.length_queue)
