"""`hvdkit check`, static pass, on the held-out sets (tests/check_heldout: from-scratch scripts labelled by
hand before the checker ever read them): pooled over the single-file sets (a to i, development data by now)
it must meet the check corpus's targets (recall and precision >= 0.95 overall, >= 0.85 on a step with at least
3 faults); the project sets (j, k, l) are below them (their README gives the figures) and are held to the
record; the committed record (benchmarks/results/check_heldout.json) says what the checker does on every set,
flat and inside its project, now.

Scoring every project set takes most of half an hour of one core on a slow machine, so this suite re-scores
the single-file sets (all of them: the targets are pooled over them) and a fixed sample of the project sets
(every EVERY-th in name order, plus the LATEST newest, the latest blind reads), and holds the sample to the
record; `make bench` (python -m benchmarks.check_heldout_bench) re-scores every set and rewrites the record."""
import json
import os

import pytest

from benchmarks import check_bench, check_heldout_bench
from benchmarks.check_bench import _projects

EVERY, LATEST = 8, 4


def _project_sets():
    # set names grow in length (j..z, za.., zza..), so name order is not the order they were written in
    return sorted((n for n in check_heldout_bench.set_names() if _projects(os.path.join(check_heldout_bench.SETS, n))),
                  key=lambda n: (len(n), n))


def _sampled():
    projects = _project_sets()
    sample = sorted(set(projects[::EVERY] + projects[-LATEST:]))
    return [n for n in check_heldout_bench.set_names() if n not in projects] + sample


@pytest.fixture(scope="module")
def now():
    return check_heldout_bench.score_sets(only=_sampled())


@pytest.fixture(scope="module")
def record():
    with open(check_heldout_bench.OUT) as fh:
        return json.load(fh)


def test_pooled_held_out_sets_meet_the_corpus_targets(now):
    pooled = now["pooled"]
    assert check_bench.corpus_shortfalls(pooled) == [], \
        [f"{m['script']} step {m['step']}: {m['verdict']}: {m['evidence']}" for m in pooled["misses"] +
         pooled["false_alarms"]]


def test_every_set_is_labelled_script_by_script(now):
    for name, scores in now["sets"].items():
        assert scores["all"]["scripts"] >= 7 and scores["all"]["overall"]["faults"] >= 5, name


def test_the_sample_has_the_single_file_sets_and_the_newest_project_sets():
    projects = _project_sets()
    sample = _sampled()
    assert set("abcdefghi") <= set(sample) and set(projects[-LATEST:]) <= set(sample)
    assert len(projects) // EVERY <= len(set(sample) & set(projects)) < len(projects)


def test_committed_record_covers_every_set(record):
    assert sorted(record["sets"]) == check_heldout_bench.set_names(), "rerun python -m benchmarks.check_heldout_bench"
    assert sorted(record["projects"]) == sorted(_project_sets()), "rerun python -m benchmarks.check_heldout_bench"


def test_committed_record_is_what_the_checker_does_now(now, record):
    for kind in ("sets", "projects"):
        for name, scores in now[kind].items():
            for key in ("per_step", "crash"):
                assert record[kind][name]["all"][key] == scores["all"][key], \
                    f"{kind} {name}: rerun python -m benchmarks.check_heldout_bench"


def test_project_sets_are_read_inside_their_projects(record):
    assert _project_sets() == list("jklmnopqrstuvwxyz") + ["z" + c for c in "abcdefghijklmnopqrstuvwxyz"] + \
        ["zz" + c for c in "abcdefghijklmnopqrstuvwxyz"] + ["zzz" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    for name, scores in record["projects"].items():
        assert scores["all"]["scripts"] == record["sets"][name]["all"]["scripts"], name
        # a crash only the project's modules show is labelled, and counted, only there
        assert scores["all"]["crash"]["fatal"] > record["sets"][name]["all"]["crash"]["fatal"], name


def test_pool_adds_the_counts_and_recomputes_the_ratios():
    step = {"faults": 2, "tp": 1, "fn": 1, "fp": 1}
    one = {"scripts": 3, "per_step": {str(n): dict(step) for n in range(1, 9)}, "misses": ["m"], "false_alarms": []}
    pooled = check_heldout_bench.pool([one, one])
    assert pooled["scripts"] == 6 and pooled["misses"] == ["m", "m"]
    assert pooled["per_step"]["3"] == {"faults": 4, "tp": 2, "fn": 2, "fp": 2, "recall": 0.5, "precision": 0.5}
    assert pooled["overall"]["faults"] == 32 and pooled["overall"]["precision"] == 0.5
