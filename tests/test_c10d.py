"""examples/c10d: the course's torch.distributed lab, each script really launched on 2 ranks with Gloo.

Expected values are closed forms: rank 1 receives rank 0's ones, allreduce gives 2 * M and
3 * M for (rank + 1) * M, DistributedSampler's shards are the strided slices of the (padded or
truncated) index list, and the data-parallel runs land on the sequential run's weights.
"""
import ast
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, rank_streams

pytestmark = pytest.mark.torch
C10D = os.path.join(ROOT, "examples", "c10d")
ROW = re.compile(r"^(?P<what>.+?)\s+rank (?P<rank>\d+): (?P<value>\[.*\])")


def script(name):
    return os.path.join(C10D, name)


def output_lines(result):
    """Whole lines of every rank's output (mpirun --tag-output chunks put back together)."""
    streams = rank_streams(result.stdout)
    return [line for rank in sorted(streams, key=lambda r: r or 0) for line in streams[rank].splitlines()]


def rows(result):
    """{(what, rank): value} from the `<what>  rank <r>: <list>` lines of a launch."""
    out = {}
    for line in output_lines(result):
        m = ROW.match(line)
        if m:
            key = (m["what"].strip(), int(m["rank"]))
            assert key not in out, f"row printed twice: {line}"
            out[key] = ast.literal_eval(m["value"])
    return out


@pytest.mark.slow
def test_hello(ranks):
    result = ranks(2, script("hello.py")).check()
    assert sorted(result.lines("rank")) == ["0 of 2 (backend gloo)", "1 of 2 (backend gloo)"]


@pytest.mark.slow
def test_p2p(ranks):
    got = rows(ranks(2, script("p2p.py")).check())
    ones, zeros = [[1.0] * 4] * 3, [[0.0] * 4] * 3
    assert got[("before", 0)] == ones and got[("before", 1)] == zeros
    for what in ("blocking send/recv", "non-blocking isend/irecv"):
        assert got[(what, 0)] == ones, what
        assert got[(what, 1)] == ones, what
    assert len(got) == 6


@pytest.mark.slow
def test_allreduce(ranks):
    result = ranks(2, script("allreduce.py")).check()
    got = rows(result)
    m = [[4 * i + j + 1.0 for j in range(4)] for i in range(3)]
    for rank in (0, 1):
        assert got[("allreduce SUM of M", rank)] == [[2 * v for v in row] for row in m]
        assert got[("allreduce SUM of (rank + 1) * M", rank)] == [[3 * v for v in row] for row in m]
    assert not any("WRONG" in line for line in output_lines(result))


@pytest.mark.slow
def test_sampler(ranks):
    length, batch = 11, 4
    got = rows(ranks(2, script("sampler.py"), ["--length", length, "--batch-size", batch]).check())
    items = [10 * i for i in range(length)]
    padded, truncated = items + items[:1], items[:10]
    for r in (0, 1):
        assert got[("shuffle=False drop_last=False", r)] == padded[r::2]
        assert got[("shuffle=False drop_last=True", r)] == truncated[r::2]
        shard = padded[r::2]
        assert got[(f"BatchSampler batch_size={batch} drop_last=False", r)] == [shard[:4], shard[4:]]
        assert got[(f"BatchSampler batch_size={batch} drop_last=True", r)] == [shard[:4]]
    for r in (0, 1, 2):
        assert got[("num_replicas=3 shuffle=False", r)] == (items + items[:1])[r::3]
    # Truncated shards are disjoint and cover the first 10 items.
    assert not set(got[("shuffle=False drop_last=True", 0)]) & set(got[("shuffle=False drop_last=True", 1)])
    epochs = []
    for epoch in (0, 1):
        a, b = got[(f"shuffle=True seed=0 epoch={epoch}", 0)], got[(f"shuffle=True seed=0 epoch={epoch}", 1)]
        assert len(a) == len(b) == 6
        assert set(a) | set(b) == set(items)  # shared seed: the shards fit together, one item padded twice
        assert len(set(a) & set(b)) <= 1
        epochs.append(a + b)
    assert epochs[0] != epochs[1]


@pytest.mark.slow
def test_ddp_vs_manual(ranks):
    result = ranks(2, script("ddp_vs_manual.py"), ["--steps", 4]).check()
    gaps = {line.split(" = ")[0]: float(line.split(" = ")[1]) for line in output_lines(result) if " = " in line}
    assert gaps["max |w manual - ddp|"] <= 1e-6
    assert gaps["max |w manual - sequential|"] <= 1e-5
    assert gaps["max |w ddp - sequential|"] <= 1e-5
    assert gaps["max |w replica - rank 0 replica (manual, ddp)|"] == 0.0
    assert gaps["initial weights, max |w - w_rank0| manual broadcast vs DDP's"] == 0.0
    # Controls: the replicas started apart, training moved the weights, and skipping the allreduce shows.
    assert gaps["initial weights, max |w - w_rank0| before broadcast"] > 1e-2
    assert gaps["max |w final - initial (manual)|"] > 1e-3
    assert gaps["max |w local only - sequential|"] > 1e-3
    steps = result.lines("step")
    assert len(steps) == 4
    for line in steps:
        losses = [float(v) for v in re.findall(r"(?:manual|ddp|sequential) (\S+)", line)]
        assert len(losses) == 3 and max(losses) - min(losses) <= 1e-5, line


@pytest.mark.parametrize("name,args,message", [
    ("p2p.py", [], "p2p.py: error: point-to-point needs 2 ranks or more, got 1: mpirun -n 2 python p2p.py"),
    ("sampler.py", ["--length", "0"], "sampler.py: error: argument --length: must be at least 1, got 0"),
])
def test_usage_errors_are_one_line_and_exit_2(tmp_path, name, args, message):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "PMIX_"))}
    proc = subprocess.run([sys.executable, script(name), *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [message]
    assert proc.stdout == ""
