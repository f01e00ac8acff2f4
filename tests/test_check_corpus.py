"""`hvdkit check`, static pass, on real scripts of other authors: the check corpus (../shared/check-corpus,
beside the repository as on CI; read there, never copied) scored as its README says, flat and inside the
scripts' own repositories (projects/). Both must keep overall recall and precision >= 0.95 and, on every
step with at least 3 labelled faults, >= 0.85 (check_bench.CORPUS_TARGETS, issue 39's); the crash finding
must keep recall >= 0.8 and precision >= 0.9 against the labels' `fatal` on the flat scripts and find no
fewer crashes inside projects than the record; and the committed record (benchmarks/results/check.json)
says what the checker does now."""
import json
import os

import pytest

from benchmarks import check_bench

pytestmark = pytest.mark.skipif(not os.path.isdir(check_bench.CORPUS),
                                reason=f"{check_bench.CORPUS} is absent (it sits beside the repository on CI)")
KINDS = {"static_corpus": False, "static_corpus_projects": True}


@pytest.fixture(scope="module")
def scores():
    return {key: check_bench.score_corpus(projects=projects) for key, projects in KINDS.items()}


@pytest.fixture(scope="module")
def record():
    with open(check_bench.OUT) as fh:
        return json.load(fh)


@pytest.mark.parametrize("key", KINDS)
def test_corpus_meets_the_targets_overall_and_on_every_step(scores, key):
    every = scores[key]["all"]
    assert check_bench.corpus_shortfalls(every) == [], \
        [f"{m['script']} step {m['step']}: {m['verdict']}" for m in every["misses"] + every["false_alarms"]]


@pytest.mark.parametrize("key", KINDS)
def test_each_corpus_half_meets_the_overall_targets(scores, key):
    for sub in ("tf", "torch"):
        overall = scores[key][sub]["overall"]
        assert overall["recall"] >= 0.9 and overall["precision"] >= 0.9, (sub, overall)


def test_crash_finding_meets_its_targets_on_the_flat_scripts(scores):
    crash = scores["static_corpus"]["all"]["crash"]
    for key, target in check_bench.CRASH_TARGETS.items():
        assert crash[key] >= target, (key, crash["missed"], crash["false_alarms"])


def test_crash_finding_inside_projects_keeps_what_it_finds(scores, record):
    crash, before = scores["static_corpus_projects"]["all"]["crash"], record["static_corpus_projects"]["all"]["crash"]
    assert crash["found"] >= before["found"] and crash["precision"] >= check_bench.CRASH_TARGETS["precision"], \
        (crash["missed"], crash["false_alarms"])


@pytest.mark.parametrize("key", KINDS)
def test_committed_record_is_what_the_checker_does_now(scores, record, key):
    for sub, now in scores[key].items():
        for part in ("per_step", "overall", "crash"):
            assert record[key][sub][part] == now[part], f"{key} {sub}: rerun python -m benchmarks.check_bench --quick"
