"""Real multi-rank launches: allreduce of rank-dependent tensors against the closed form.

Rank r contributes (r + 1) * [0, 1, 2, 3]: the sum over n ranks is n(n+1)/2 * [0, 1, 2, 3] and the
average is (n+1)/2 * [0, 1, 2, 3]. The rank code is tests/ranks/steps_*.py's `allreduce` check: under
mpirun it runs in the shared launch of its framework and rank count (tests/steps.py), under horovodrun
(Gloo) alone.
"""
import os

import pytest

from steps import FRAMEWORKS, HERE, SCRIPTS

pytestmark = pytest.mark.slow  # launches ranks


def _check(result, n):
    result.check()
    rows = sorted(result.lines("RESULT"), key=lambda ln: int(ln.split()[0]))
    assert [int(r.split()[0]) for r in rows] == list(range(n)), result.stdout
    for row in rows:
        values = [float(v) for v in row.split()[2:]]
        assert int(row.split()[1]) == n
        assert values[:4] == [n * (n + 1) / 2 * i for i in range(4)]
        assert values[4:] == pytest.approx([(n + 1) / 2 * i for i in range(4)], rel=1e-12)


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_allreduce_under_mpirun(shared_checks, framework, n):
    _check(shared_checks(framework, n), n)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_allreduce_under_horovodrun(ranks, framework):
    _check(ranks(2, os.path.join(HERE, "ranks", SCRIPTS[framework]), ["allreduce"], launcher="horovodrun"), 2)
