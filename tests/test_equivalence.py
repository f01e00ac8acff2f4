"""Data-parallel training equals sequential training (issue 3's central property).

p ranks with per-rank batch b, after broadcast from rank 0 (each rank seeds its model differently),
end with the weights of plain training with batch p*b over the same sample order, with and without
shuffling, for SGD (momentum) and Adam: to 1e-5 relative in float32. All ranks end bit-identical.
"""
from collections import defaultdict

import pytest

from steps import FRAMEWORKS

pytestmark = pytest.mark.slow  # launches ranks


def _check(result, n):
    result.check()
    maxrel = {tuple(ln.split()[:2]): float(ln.split()[2]) for ln in result.lines("MAXREL")}
    assert set(maxrel) == {(o, s) for o in ("sgd", "adam") for s in ("False", "True")}, result.stdout
    for case, rel in maxrel.items():
        assert rel < 1e-5, f"{case}: data-parallel weights differ from sequential by {rel:.2e} (relative)"
    hashes = defaultdict(set)
    for line in result.lines("HASH"):
        rank, opt, shuffle, digest = line.split()
        hashes[(opt, shuffle)].add((int(rank), digest))
    # Every case's final weights from every rank: a missing HASH line is a failure, not a pass.
    assert set(hashes) == set(maxrel), \
        f"HASH lines for {sorted(hashes)}, cases {sorted(maxrel)}\n{result.stdout[-3000:]}"
    for case, seen in hashes.items():
        assert sorted(r for r, _ in seen) == list(range(n)), case
        assert len({d for _, d in seen}) == 1, f"{case}: replicas diverged"


# Each case's launch is the shared one of its framework and rank count (tests/steps.py: per-rank batch 4 at
# 2 ranks, 3 at 4), which runs tests/ranks/equiv_*.py's run() among the other checks.
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_matches_sequential(shared_checks, framework, n):
    _check(shared_checks(framework, n), n)
