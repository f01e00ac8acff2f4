"""Data-parallel training equals sequential training (issue 3's central property).

p ranks with per-rank batch b, after broadcast from rank 0 (each rank seeds its model differently),
end with the weights of plain training with batch p*b over the same sample order, with and without
shuffling, for SGD (momentum) and Adam: to 1e-5 relative in float32. All ranks end bit-identical.
"""
import os
from collections import defaultdict

import pytest

pytestmark = pytest.mark.slow  # launches ranks

HERE = os.path.dirname(os.path.abspath(__file__))


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


@pytest.mark.horovod
@pytest.mark.torch
@pytest.mark.parametrize("n,batch", [(2, 4), (4, 3)])
def test_torch_matches_sequential(ranks, n, batch):
    _check(ranks(n, os.path.join(HERE, "ranks", "equiv_torch.py"), ["--batch", batch]), n)


@pytest.mark.horovod
@pytest.mark.tensorflow
@pytest.mark.parametrize("n,batch", [(2, 4), (4, 3)])
def test_tensorflow_matches_sequential(ranks, n, batch):
    _check(ranks(n, os.path.join(HERE, "ranks", "equiv_tf.py"), ["--batch", batch]), n)
