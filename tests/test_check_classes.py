"""`hvdkit check`, static pass, on the classes of mistakes real scripts make (issue 24): for each class a
script written from scratch (tests/check_cases/cases.py: a small trainer plus explicit edits) is flagged
on its step and on no other, and its correct twin is flagged on none. A broken script that certainly
crashes has the crash finding (the error it raises), and no other script has one (issue 39)."""
import os
import sys

import pytest

from hvdkit.check import FLAGGED
from hvdkit.check.static import analyze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "check_cases"))
import cases  # noqa: E402 - the case table lives beside its trainers, found through sys.path


def _flagged(tmp_path, case, edits, kind):
    path = tmp_path / f"{case.name}_{kind}.py"
    path.write_text(cases.apply(case.trainer, edits))
    findings, _, info = analyze(str(path))
    return {n: f.evidence for n, f in findings.items() if f.verdict in FLAGGED}, info["crash"]


@pytest.mark.parametrize("case", cases.CASES, ids=[c.name for c in cases.CASES])
def test_broken_script_flagged_on_its_step_only(tmp_path, case):
    flagged, crash = _flagged(tmp_path, case, case.broken, "broken")
    assert list(flagged) == ([case.step] if case.step else []), flagged
    if case.crash:
        assert crash is not None and crash["error"].startswith(case.crash + ":"), crash
    else:
        assert crash is None, crash


@pytest.mark.parametrize("case", cases.CASES, ids=[c.name for c in cases.CASES])
def test_correct_twin_flagged_on_none(tmp_path, case):
    assert _flagged(tmp_path, case, case.correct, "correct") == ({}, None)


def test_every_class_of_the_issue_has_cases():
    steps = {c.step for c in cases.CASES}
    assert steps >= {2, 3, 4, 5, 6, 7, 8} and len(cases.CASES) >= 30
    assert len({c.name for c in cases.CASES}) == len(cases.CASES)


def test_an_edit_that_does_not_apply_is_an_error():
    with pytest.raises(ValueError, match="occurs 0 times"):
        cases.apply(cases.TORCH, [("no such line\n", "")])
