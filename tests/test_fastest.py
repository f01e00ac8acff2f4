"""hvdkit.common.fastest.Trial: the plan of a trial (each way once untimed, then alternated timed steps), the
choice by the job's means, the fall-back when a way fails, and its one-line report. No framework needed."""
import math

import pytest

from hvdkit.common.fastest import Trial


def run(trial, seconds, fail=()):
    """Drive a trial to its end: `seconds[way]` is each step's time; ways in `fail` raise. The steps taken."""
    taken = []
    while (nxt := trial.next()) is not None:
        way, timed = nxt
        taken.append((way, timed))
        if way in fail:
            trial.record(error=RuntimeError(f"{way} cannot compile\nsecond line"))
        else:
            trial.record(seconds[way])
    return taken


def test_each_way_once_untimed_then_alternated():
    trial = Trial(("a", "b"), timed_per_way=3)
    taken = run(trial, {"a": 1.0, "b": 2.0})
    assert taken == [("a", False), ("b", False), ("a", True), ("b", True), ("b", True), ("a", True),
                     ("a", True), ("b", True)]
    assert trial.times == {"a": [1.0, 1.0, 1.0], "b": [2.0, 2.0, 2.0]}
    assert len(taken) == Trial.length(3)


def test_the_faster_way_by_the_jobs_means_not_this_ranks():
    trial = Trial(("a", "b"))
    run(trial, {"a": 1.0, "b": 2.0})
    assert trial.decide() == "a"
    # Another rank saw b faster by more: the job's average decides for every rank.
    assert trial.decide(agree=lambda m: [(m[0] + 5.0) / 2, (m[1] + 0.5) / 2]) == "b"
    assert trial.means == {"a": 3.0, "b": 1.25}


def test_a_failed_way_runs_the_other_way_untimed_and_loses():
    trial = Trial(("xla", "plain"))
    taken = run(trial, {"plain": 0.5}, fail={"xla"})
    # The failed attempt, then every planned step still runs (the other way, untimed in xla's slots): a rank
    # whose xla failed reaches the decision, a collective, at the same step as a rank whose xla worked.
    assert taken == [("xla", False), ("plain", False), ("plain", False), ("plain", False), ("plain", True),
                     ("plain", True), ("plain", False)]
    assert trial.times == {"xla": [], "plain": [0.5, 0.5]}
    assert trial.decide() == "plain"
    assert math.isinf(trial.means["xla"])
    assert trial.report() == "xla failed (RuntimeError: xla cannot compile), plain 500 ms per step: plain"


def test_a_way_that_failed_on_another_rank_loses_here_too():
    trial = Trial(("xla", "plain"))
    run(trial, {"xla": 0.1, "plain": 0.5})
    assert trial.decide(agree=lambda m: [math.inf, m[1]]) == "plain"
    assert trial.report(str.upper) == "XLA failed on another rank, PLAIN 500 ms per step: PLAIN"


def test_every_way_failing_is_an_error_naming_both():
    trial = Trial(("a", "b"))
    with pytest.raises(RuntimeError, match="every way failed: a: RuntimeError: a cannot compile; b: "):
        run(trial, {}, fail={"a", "b"})
    with pytest.raises(RuntimeError, match="every way failed"):
        trial.decide()


@pytest.mark.parametrize("ways, timed", [(("a",), 2), (("a", "a"), 2), (("a", "b"), 0)])
def test_bad_arguments(ways, timed):
    with pytest.raises(ValueError):
        Trial(ways, timed)
