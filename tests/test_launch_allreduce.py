"""Real multi-rank launches: allreduce of rank-dependent tensors against the closed form.

Rank r contributes (r + 1) * [0, 1, 2, 3]: the sum over n ranks is n(n+1)/2 * [0, 1, 2, 3] and the
average is (n+1)/2 * [0, 1, 2, 3].
"""
import pytest

pytestmark = pytest.mark.slow  # launches ranks

TORCH = """
import horovod.torch as hvd, torch
hvd.init()
x = (hvd.rank() + 1) * torch.arange(4, dtype=torch.float64)
s = hvd.allreduce(x, op=hvd.Sum, name="s")
a = hvd.allreduce(x, op=hvd.Average, name="a")
print("RESULT", hvd.rank(), hvd.size(), *s.tolist(), *a.tolist())
"""

TF = """
import horovod.tensorflow as hvd, tensorflow as tf
hvd.init()
x = float(hvd.rank() + 1) * tf.range(4, dtype=tf.float64)
s = hvd.allreduce(x, op=hvd.Sum, name="s")
a = hvd.allreduce(x, op=hvd.Average, name="a")
print("RESULT", hvd.rank(), hvd.size(), *s.numpy().tolist(), *a.numpy().tolist())
"""


def _check(result, n):
    result.check()
    rows = sorted(result.lines("RESULT"), key=lambda ln: int(ln.split()[0]))
    assert [int(r.split()[0]) for r in rows] == list(range(n)), result.stdout
    for row in rows:
        values = [float(v) for v in row.split()[2:]]
        assert int(row.split()[1]) == n
        assert values[:4] == [n * (n + 1) / 2 * i for i in range(4)]
        assert values[4:] == pytest.approx([(n + 1) / 2 * i for i in range(4)], rel=1e-12)


@pytest.mark.horovod
@pytest.mark.torch
@pytest.mark.parametrize("launcher,n", [("mpirun", 2), ("horovodrun", 2), ("mpirun", 4)])
def test_torch_allreduce(ranks, launcher, n):
    _check(ranks(n, TORCH, launcher=launcher), n)


@pytest.mark.horovod
@pytest.mark.tensorflow
@pytest.mark.parametrize("launcher,n", [("mpirun", 2), ("horovodrun", 2), ("mpirun", 4)])
def test_tensorflow_allreduce(ranks, launcher, n):
    _check(ranks(n, TF, launcher=launcher), n)
