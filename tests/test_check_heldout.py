"""`hvdkit check`, static pass, on the held-out sets (tests/check_heldout: from-scratch scripts labelled by
hand before the checker ever read them): pooled over the single-file sets (a to i, development data by now)
it must meet the check corpus's targets (recall and precision >= 0.95 overall, >= 0.85 on a step with at least
3 faults); the project sets (j, k, l) are below them (their README gives the figures) and are held to the
record; the committed record (benchmarks/results/check_heldout.json) says what the checker does on every set,
flat and inside its project, now."""
import json

import pytest

from benchmarks import check_bench, check_heldout_bench


@pytest.fixture(scope="module")
def now():
    return check_heldout_bench.score_sets()


def test_pooled_held_out_sets_meet_the_corpus_targets(now):
    pooled = now["pooled"]
    assert check_bench.corpus_shortfalls(pooled) == [], \
        [f"{m['script']} step {m['step']}: {m['verdict']}: {m['evidence']}" for m in pooled["misses"] +
         pooled["false_alarms"]]


def test_every_set_is_labelled_script_by_script(now):
    for name, scores in now["sets"].items():
        assert scores["all"]["scripts"] >= 7 and scores["all"]["overall"]["faults"] >= 5, name


def test_committed_record_is_what_the_checker_does_now(now):
    with open(check_heldout_bench.OUT) as fh:
        record = json.load(fh)
    assert sorted(record["sets"]) == sorted(now["sets"]), "rerun python -m benchmarks.check_heldout_bench"
    for kind in ("sets", "projects"):
        assert sorted(record[kind]) == sorted(now[kind]), "rerun python -m benchmarks.check_heldout_bench"
        for name, scores in now[kind].items():
            for key in ("per_step", "crash"):
                assert record[kind][name]["all"][key] == scores["all"][key], \
                    f"{kind} {name}: rerun python -m benchmarks.check_heldout_bench"


def test_project_sets_are_read_inside_their_projects(now):
    assert sorted(now["projects"]) == list("jklmnopqrstuvwxyz") + ["z" + c for c in "abcdefghijklmnopqrstuvwxyz"] + \
        ["zz" + c for c in "abcdefghijklmnopqrstuvwxyz"] + ["zzz" + c for c in "abcdefghijklmn"]
    for name, scores in now["projects"].items():
        assert scores["all"]["scripts"] == now["sets"][name]["all"]["scripts"], name
        # a crash only the project's modules show is labelled, and counted, only there
        assert scores["all"]["crash"]["fatal"] > now["sets"][name]["all"]["crash"]["fatal"], name


def test_pool_adds_the_counts_and_recomputes_the_ratios():
    step = {"faults": 2, "tp": 1, "fn": 1, "fp": 1}
    one = {"scripts": 3, "per_step": {str(n): dict(step) for n in range(1, 9)}, "misses": ["m"], "false_alarms": []}
    pooled = check_heldout_bench.pool([one, one])
    assert pooled["scripts"] == 6 and pooled["misses"] == ["m", "m"]
    assert pooled["per_step"]["3"] == {"faults": 4, "tp": 2, "fn": 2, "fp": 2, "recall": 0.5, "precision": 0.5}
    assert pooled["overall"]["faults"] == 32 and pooled["overall"]["precision"] == 0.5
