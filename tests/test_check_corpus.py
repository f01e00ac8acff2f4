"""`hvdkit check`, static pass, on real scripts of other authors: the check corpus (../shared/check-corpus,
beside the repository as on CI; read there, never copied) scored as its README says must keep overall
recall and precision >= 0.9 and, on every step with at least 3 labelled faults, >= 0.8; and the committed
record (benchmarks/results/check.json) says what the checker does now."""
import json
import os

import pytest

from benchmarks import check_bench

pytestmark = pytest.mark.skipif(not os.path.isdir(check_bench.CORPUS),
                                reason=f"{check_bench.CORPUS} is absent (it sits beside the repository on CI)")


@pytest.fixture(scope="module")
def scores():
    return check_bench.score_corpus()


def test_corpus_meets_the_targets_overall_and_on_every_step(scores):
    assert check_bench.corpus_shortfalls(scores["all"]) == [], \
        [f"{m['script']} step {m['step']}: {m['verdict']}"
         for m in scores["all"]["misses"] + scores["all"]["false_alarms"]]


def test_each_corpus_half_meets_the_overall_targets(scores):
    for sub in ("tf", "torch"):
        overall = scores[sub]["overall"]
        assert overall["recall"] >= 0.9 and overall["precision"] >= 0.9, (sub, overall)


def test_committed_record_is_what_the_checker_does_now(scores):
    with open(check_bench.OUT) as fh:
        record = json.load(fh)["static_corpus"]
    for sub, now in scores.items():
        assert record[sub]["per_step"] == now["per_step"], f"{sub}: rerun python -m benchmarks.check_bench --quick"
        assert record[sub]["overall"] == now["overall"]
