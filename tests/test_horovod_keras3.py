"""Horovod's own TensorFlow/Keras API on Keras 3 (hvdkit's patched Horovod), used as users write it.

One launch at 2 ranks runs tests/ranks/hvd_keras3_ops.py, then hvd_keras3_fit.py; every expected value here
is computed with NumPy from the inputs the ranks report (or is a literal), never by Horovod or Keras.
These also stand in for the upstream tests that fail only on their own Keras 2 code
(docs/horovod-patch.md lists which test covers which).
"""
import json
import os

import numpy as np
import pytest

from conftest import run_ranks

HERE = os.path.dirname(os.path.abspath(__file__))
N = 2
pytestmark = [pytest.mark.tensorflow, pytest.mark.horovod, pytest.mark.slow]  # slow: launches ranks


# Both rank scripts in one launch (a launch is mostly TensorFlow's import); their checks' names differ.
BOTH = """
import os, runpy, sys
ranks, scratch = sys.argv[1:]
for script in ("hvd_keras3_ops.py", "hvd_keras3_fit.py"):
    sys.argv = [script, scratch]  # hvd_keras3_fit.py writes into its argv[1]
    runpy.run_path(os.path.join(ranks, script), run_name="__main__")
"""


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("hvd_keras3")
    result = run_ranks(N, BOTH, [os.path.join(HERE, "ranks"), str(cwd)], cwd=str(cwd), timeout=300).check()
    rows = {}
    for line in result.lines("HVD3"):
        row = json.loads(line)
        rows.setdefault(row["check"], {})[row["rank"]] = row
    assert len(rows) == 12, sorted(rows)  # 8 checks of hvd_keras3_ops.py, 4 of hvd_keras3_fit.py
    return rows


@pytest.fixture(scope="module")
def fit(ops):
    return ops


def _a(v):
    return np.asarray(v, dtype=np.float64)


def _mse_grads(x, y, w, b=0.0):
    """Gradients of mean((x @ w + b - y)^2) with respect to w and b."""
    err = x @ w + b - y
    return 2.0 / len(x) * x.T @ err, 2.0 / len(x) * err.sum()


def _both(rows, check):
    assert set(rows.get(check, {})) == {0, 1}, f"check {check!r} did not report from both ranks: {rows.get(check)}"
    return rows[check][0], rows[check][1]


def test_tape_broadcast_and_average(ops):
    r0, r1 = _both(ops, "tape")
    assert r0["before"] == [[0.5]] * 3 and r1["before"] == [[1.5]] * 3   # rank-dependent start
    assert r0["w0"] == r1["w0"] == [[0.5]] * 3                           # broadcast from rank 0
    w0 = _a(r0["w0"])
    mean_grad = np.mean([_mse_grads(_a(r["x"]), _a(r["y"]), w0)[0] for r in (r0, r1)], axis=0)
    for r in (r0, r1):
        np.testing.assert_allclose(_a(r["w1"]), w0 - 0.1 * mean_grad, rtol=1e-5)


def test_inplace_broadcast_and_grouped_allreduce(ops):
    rows = _both(ops, "groups_inplace")
    for r in rows:
        assert (r["w0_a"], r["w0_b"]) == ([[1.0]] * 3, [[-1.0]] * 3)   # rank 0's values, broadcast in place
        for name, w in (("grad_a", 1.0), ("grad_b", -1.0)):
            mean = np.mean([_mse_grads(_a(q["x"]), _a(q["y"]), np.full((3, 1), w))[0] for q in rows], axis=0)
            np.testing.assert_allclose(r[name], mean, rtol=1e-5)


def test_partial_tape_keeps_local_gradient_local(ops):
    rows = _both(ops, "partial_tape")
    shared_grads = [_mse_grads(_a(r["x"]), _a(r["y"]), np.full((3, 1), -0.5))[0] for r in rows]
    for r in rows:
        local_grad = _mse_grads(_a(r["x"]), _a(r["y"]), np.full((3, 1), 0.25))[0]
        np.testing.assert_allclose(_a(r["local"]), 0.25 - 0.1 * local_grad / N, rtol=1e-5)
        np.testing.assert_allclose(_a(r["shared"]), -0.5 - 0.1 * np.mean(shared_grads, axis=0), rtol=1e-5)
    assert rows[0]["local"] != rows[1]["local"]


def test_partial_distributed_optimizer_in_fit(ops):
    rows = _both(ops, "partial_optimizer")
    zero = np.zeros((3, 1))
    shared_grads = [_mse_grads(_a(r["x"]), _a(r["y"]), zero)[0] for r in rows]
    for r in rows:
        np.testing.assert_allclose(_a(r["local"]), -0.1 * _mse_grads(_a(r["x"]), _a(r["y"]), zero)[0] / N,
                                   rtol=1e-5)
        np.testing.assert_allclose(_a(r["shared"]), -0.1 * np.mean(shared_grads, axis=0), rtol=1e-5)
    assert rows[0]["local"] != rows[1]["local"]


def test_gradient_aggregation(ops):
    for r in _both(ops, "aggregation"):
        # Pass 1 gives [rank+1, 1], pass 2 [2(rank+1), 3]: summed per rank [3(rank+1), 4], mean over ranks [4.5, 4].
        for average, divisor in ((False, 1), (True, 2)):
            assert r[f"after1_{average}"] == [1.0, 2.0]
            np.testing.assert_allclose(r[f"after2_{average}"],
                                       [1 - 0.1 * 4.5 / divisor, 2 - 0.1 * 4 / divisor], rtol=1e-6)
            assert r[f"iterations_{average}"] == 2
        np.testing.assert_allclose(r["shared"], [-0.1 * 3.0], rtol=1e-6)            # mean of 2*1 and 2*2
        np.testing.assert_allclose(r["local"], [-0.1 * 2 * (r["rank"] + 1) / N], rtol=1e-6)
        np.testing.assert_allclose(r["after_inf_cycle"], [-0.1 * 2.5], rtol=1e-6)   # no inf left over


def test_sparse_gradients(ops):
    rows = _both(ops, "sparse")
    counts = [np.bincount(np.ravel(r["ids"]), minlength=5) * (r["rank"] + 1) for r in rows]
    once = 1.0 - 0.1 * np.mean(counts, axis=0)[:, None] * np.ones((1, 2))
    twice = 1.0 - 0.1 * 2 * np.mean(counts, axis=0)[:, None] * np.ones((1, 2))
    for r in rows:
        assert r["sparse_grad_type"] == "IndexedSlices"
        np.testing.assert_allclose(r["sparse"], once, rtol=1e-6)
        np.testing.assert_allclose(r["dense"], once, rtol=1e-6)
        np.testing.assert_allclose(r["dense_agg"], twice, rtol=1e-6, atol=1e-7)


def test_sync_batch_norm_uses_every_ranks_batch(ops):
    rows = _both(ops, "syncbn")
    x = np.concatenate([_a(r["x"]) for r in rows])
    mean, var = x.mean(axis=0), x.var(axis=0)
    for r in rows:
        np.testing.assert_allclose(r["y"], (_a(r["x"]) - mean) / np.sqrt(var + r["epsilon"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(r["moving_mean"], 0.5 * mean, rtol=1e-6)
        np.testing.assert_allclose(r["moving_variance"], 0.5 * 1.0 + 0.5 * var, rtol=1e-6)


def test_keras2_idioms_from_horovods_examples(ops):
    for r in _both(ops, "keras_idioms"):
        assert r["n_plain_variables"] == 4   # Adam on one variable: iterations, learning rate, two moments
        np.testing.assert_allclose(r["w"], [-0.1 * 1.5], rtol=1e-6)   # horovod.keras averaged 1 and 2
        assert r["compiled"] is True


def _warmup_lr(epoch, batch, steps, size, initial, warmup_epochs):
    """Horovod's documented warmup: initial/size growing linearly to initial over warmup_epochs."""
    e = epoch + (batch + 1) / steps
    return initial / size * (e * (size - 1) / warmup_epochs + 1)


def _simulate_fit(r0, r1, steps=4, batch=4, epochs=4, momentum=0.9):
    """The run hvd_keras3_fit.py's check_fit makes, in float64: SGD with momentum on the gradient averaged over
    ranks; warmup for 2 epochs then 0.5x per epoch from epoch 2 (staircase), momentum corrected by the LR ratio
    each time a callback changes it; rank 0's state is broadcast after the first batch. Also each rank's raw
    epoch loss. Returns (lrs, w, b, v_w, v_b, losses)."""
    data = [(_a(r["x"]), _a(r["y"])) for r in (r0, r1)]
    w = [np.full((2, 1), r["kernel0"]) for r in (r0, r1)]
    b = [float(r["bias0"]) for r in (r0, r1)]
    vw, vb = np.zeros((2, 1)), 0.0
    lr, lrs, losses = 0.1 * N, [], {0: [], 1: []}
    for e in range(epochs):
        epoch_loss = {0: [], 1: []}
        for k in range(steps):
            new = _warmup_lr(e, k, steps, N, 0.1 * N, 2) if e < 2 else (0.1 * N * 0.5 ** (e - 2) if k == 0 else lr)
            if new != lr and lr:
                vw, vb = vw * new / lr, vb * new / lr
            lr = new
            lrs.append(lr)
            grads = []
            for rank, (x, y) in enumerate(data):
                xb, yb = x[k * batch:(k + 1) * batch], y[k * batch:(k + 1) * batch]
                epoch_loss[rank].append(np.mean((xb @ w[rank] + b[rank] - yb) ** 2))
                grads.append(_mse_grads(xb, yb, w[rank], b[rank]))
            gw, gb = np.mean([g[0] for g in grads], axis=0), np.mean([g[1] for g in grads])
            vw, vb = momentum * vw - lr * gw, momentum * vb - lr * gb
            w0, b0 = w[0] + vw, b[0] + vb
            w, b = [w0, w0], [b0, b0]          # after batch 0 the broadcast makes rank 1 rank 0
        for rank in (0, 1):
            losses[rank].append(np.mean(epoch_loss[rank]))
    return lrs, w[0], b[0], vw, vb, lr, losses


def test_fit_with_every_callback_matches_closed_form(fit):
    r0, r1 = _both(fit, "fit")
    lrs, w, b, _, _, _, losses = _simulate_fit(r0, r1)
    for r in (r0, r1):
        np.testing.assert_allclose(r["lr"], lrs, rtol=1e-6)
        np.testing.assert_allclose(r["kernel"], w, rtol=2e-4, atol=1e-5)
        np.testing.assert_allclose(r["bias"], [b], rtol=2e-4, atol=1e-5)
        np.testing.assert_allclose([e["loss"] for e in r["raw"]], losses[r["rank"]], rtol=2e-4)
    assert r0["kernel"] == r1["kernel"] and r0["bias"] == r1["bias"]
    for e in range(4):   # MetricAverageCallback: the mean of the ranks' losses, the same on both ranks
        exact = (r0["raw"][e]["loss"] + r1["raw"][e]["loss"]) / 2
        assert r0["raw"][e]["loss"] != pytest.approx(r1["raw"][e]["loss"])
        assert r0["averaged"][e]["loss"] == pytest.approx(exact, rel=1e-6)
        assert r1["averaged"][e]["loss"] == pytest.approx(exact, rel=1e-6)
    assert "best.keras" in r0["files"]   # BestModelCheckpoint on rank 0


def test_load_model_keeps_distributed_optimizer_and_state(fit):
    f0, f1 = _both(fit, "fit")
    _, w, b, vw, vb, lr, _ = _simulate_fit(f0, f1)
    grads = [_mse_grads(_a(f["x"])[:4] * (f["rank"] + 1), _a(f["y"])[:4], w, b) for f in (f0, f1)]
    vw, vb = 0.9 * vw - lr * np.mean([g[0] for g in grads], axis=0), 0.9 * vb - lr * np.mean([g[1] for g in grads])
    for r in _both(fit, "load_model"):
        assert (r["optimizer"], r["distributed"], r["iterations"], r["iterations_after"]) == ("SGD", True, 16, 17)
        np.testing.assert_allclose(r["kernel"], w + vw, rtol=2e-4, atol=1e-5)
        np.testing.assert_allclose(r["bias"], [b + vb], rtol=2e-4, atol=1e-5)


def test_broadcast_callback_leaves_local_variables(fit):
    r0, r1 = _both(fit, "broadcast_local")
    assert r0["kernel"] == r1["kernel"] == [[1.0], [1.0]]
    assert (r0["bias"], r1["bias"]) == ([10.0], [11.0])


def test_elastic_state(fit):
    for r in _both(fit, "elastic"):
        assert (r["synced_kernel"], r["synced_batch"], r["synced_epoch"]) == ([[1.0], [1.0]], 20, 10)
        assert (r["restored_kernel"], r["restored_batch"]) == ([[1.0], [1.0]], 20)
        assert (r["committed_kernel"], r["committed_batch"]) == ([[5.0], [5.0]], 21)
        assert r["tf_state_variable"] == [3.0]
