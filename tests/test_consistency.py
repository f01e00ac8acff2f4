"""Ranks that disagree (model shapes, steps per epoch, hvdkit/framework versions) are stopped at start with
one line naming what differs on which rank, exit 2 -- not a deadlock in the first allreduce."""
import pytest

from hvdkit.common.fingerprint import ConsistencyError, compare, shapes

TORCH = """
import hvdkit
import torch
import hvdkit.torch as hk
ctx = hk.init(threads=1)
hk.check_consistent(model=torch.nn.Linear(4, 2), steps=8, lr=0.1)
print("AGREED", ctx.rank, flush=True)
if ctx.rank == 1:
    hvdkit.__version__ = "0.0.0-other-venv"  # as if rank 1 ran another installation
hk.check_consistent(model=torch.nn.Linear(4 + ctx.rank, 2), steps=8 - ctx.rank, lr=0.1)
print("NOT REACHED", ctx.rank, flush=True)
"""

TF = """
import keras
import hvdkit.tensorflow as hk
ctx = hk.init(threads=1)
if ctx.rank == 1:
    keras.layers.Dense(1)  # layer names follow per-process counters: rank 1's next Dense is "dense_1"
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
hk.broadcast_state(model)  # same shapes, other layer names: agreed
print("AGREED", ctx.rank, flush=True)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2 + ctx.rank)])
hk.broadcast_state(model)  # checks the fingerprint before the first broadcast
print("NOT REACHED", ctx.rank, flush=True)
"""


def stopped_line(ranks, source):
    """Launch 2 ranks that agree once, then disagree: the one error line rank 0 prints for all."""
    result = ranks(2, source, timeout=180)
    assert result.returncode == 2, result.stderr[-3000:]
    assert sorted(result.lines("AGREED")) == ["0", "1"] and not result.lines("NOT REACHED")
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(lines) == 1, result.stderr[-3000:]  # every rank raises; rank 0 speaks for all
    return lines[0]


@pytest.mark.torch
@pytest.mark.horovod
@pytest.mark.slow
def test_torch_ranks_disagree(ranks):
    line = stopped_line(ranks, TORCH)
    assert "the 2 ranks disagree" in line
    assert "model: rank 0 2 tensors [weight:2x4, bias:2]; rank 1 2 tensors [weight:2x5, bias:2]" in line
    assert "steps: rank 0 8; rank 1 7" in line
    assert "hvdkit: rank 0 " in line and "rank 1 0.0.0-other-venv" in line
    assert "lr:" not in line and "torch:" not in line  # only what differs is named


@pytest.mark.tensorflow
@pytest.mark.horovod
@pytest.mark.slow
def test_tensorflow_ranks_disagree(ranks):
    line = stopped_line(ranks, TF)
    assert "model: rank 0 2 tensors [kernel:3x2, bias:2]; rank 1 2 tensors [kernel:3x3, bias:3]" in line, line


def test_compare_names_every_difference_and_groups_ranks():
    fps = [{"steps": 8, "model": shapes([("w", (2, 4))])} for _ in range(6)]
    fps[3]["steps"] = 7
    del fps[5]["model"]
    with pytest.raises(ConsistencyError) as err:
        compare(fps)
    text = str(err.value)
    assert "steps: ranks 0,1,2,4 8; ranks 3,5 7" not in text  # ranks are grouped by value, not by position
    assert "steps: ranks 0,1,2,4,5 8; rank 3 7" in text
    assert "model: ranks 0..4 1 tensors [w:2x4]; rank 5 (not given)" in text
    assert "\n" not in text
    compare([{"a": 1}, {"a": 1}])  # agreeing ranks pass
