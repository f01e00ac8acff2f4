"""Step 5's op and compression reach Horovod: sum, average, Adasum and fp16 compression at 2 ranks,
each against its closed form (tests/ranks/reduce_ops.py)."""
import os

import numpy as np
import pytest

from ranks.reduce_ops import G
from steps import HERE

SCRIPT = os.path.join(HERE, "ranks", "reduce_ops.py")
pytestmark = [pytest.mark.horovod, pytest.mark.slow]  # slow: launches ranks


def adasum(a, b):
    # Maleki et al. 2020, as Horovod combines two vectors: each scaled down by half its projection on the other.
    dot = float(np.dot(a, b))
    return (1 - dot / (2 * np.dot(a, a))) * a + (1 - dot / (2 * np.dot(b, b))) * b


def expected():
    a, b = G.astype(np.float64)
    h = G.astype(np.float16).astype(np.float64)
    return {("average", "none"): (a + b) / 2, ("sum", "none"): a + b,
            ("adasum", "none"): adasum(a, b), ("average", "fp16"): (h[0] + h[1]) / 2}


def check(result):
    result.check()
    got = {}
    for line in result.lines("RESULT"):
        rank, op, comp, *p = line.split()
        got.setdefault((op, comp), []).append(-np.array(p, dtype=np.float64))
    exact = G.astype(np.float64).mean(axis=0)
    for case, want in expected().items():
        assert len(got.get(case, [])) == 2, f"{case} missing:\n{result.stdout}\n{result.stderr[-2000:]}"
        r0, r1 = got[case]
        assert np.array_equal(r0, r1), f"{case}: ranks differ {r0} {r1}"
        tol = 1e-3 if case[1] == "fp16" else 1e-6
        np.testing.assert_allclose(r0, want, rtol=tol, atol=tol, err_msg=str(case))
    # The cases must be distinguishable, or the test could not tell a dropped option from a passed one.
    assert np.abs(got[("adasum", "none")][0] - exact).max() > 0.1
    assert np.abs(got[("average", "fp16")][0] - exact).max() > 1e-5


@pytest.mark.torch
def test_torch_ops_and_compression(ranks):
    check(ranks(2, SCRIPT, ["torch"]))


@pytest.mark.tensorflow
def test_tensorflow_ops_and_compression(ranks):
    check(ranks(2, SCRIPT, ["tensorflow"]))
