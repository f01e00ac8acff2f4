"""hvdkit's Horovod wakes its background thread when a tensor is enqueued (scripts/patches/horovod-core/).

Upstream Horovod sleeps out every cycle (HOROVOD_CYCLE_TIME) before it looks at the queue, so each blocking
collective waits up to a cycle. With a cycle of 500 ms, six back-to-back allreduces take about 3 s upstream
(HVDKIT_CYCLE_WAKE=0 puts its sleep back: the twin that shows this test can fail) and a few milliseconds
with the wake-up. Rank r contributes r + 1: each sum must be n(n+1)/2.
"""
import os

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.horovod, pytest.mark.torch]

CYCLE_S = 0.5
CALLS = 6

SCRIPT = f"""
import time
import torch
import horovod.torch as hvd
hvd.init()
x = torch.full((1024,), float(hvd.rank() + 1))
hvd.allreduce(x, op=hvd.Sum, name="first")  # the first cycles negotiate names; not timed
t0 = time.perf_counter()
sums = [hvd.allreduce(x, op=hvd.Sum, name="timed")[0].item() for _ in range({CALLS})]
print("RESULT", hvd.rank(), time.perf_counter() - t0, *sums)
"""


def _run(ranks, wake):
    env = dict(os.environ, HOROVOD_CYCLE_TIME=str(CYCLE_S * 1000), HVDKIT_CYCLE_WAKE="1" if wake else "0")
    result = ranks(2, SCRIPT, env=env)
    result.check()
    rows = [line.split() for line in result.lines("RESULT")]
    assert sorted(int(r[0]) for r in rows) == [0, 1], result.stdout
    for row in rows:
        assert [float(v) for v in row[2:]] == [3.0] * CALLS  # 1 + 2
    return max(float(r[1]) for r in rows)


def test_a_collective_does_not_wait_out_the_cycle(ranks):
    elapsed = _run(ranks, wake=True)
    assert elapsed < CYCLE_S, f"{CALLS} allreduces took {elapsed:.2f} s with a {CYCLE_S} s cycle"


def test_upstreams_sleep_is_what_the_switch_puts_back(ranks):
    elapsed = _run(ranks, wake=False)
    assert elapsed > CALLS * CYCLE_S * 0.8, f"{CALLS} allreduces took {elapsed:.2f} s with a {CYCLE_S} s cycle"
