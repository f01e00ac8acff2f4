"""Kill and resume at 4 ranks (oversubscribed) under mpirun's MPI controller and horovodrun's Gloo.

Rank 3 is SIGKILLed right after the epoch-2 checkpoint of 4: the job must end within 15 s naming rank 3
with no rank left running, the checkpoint must be intact, and resuming from it must end with the
weights of an uninterrupted 4-rank run. Under mpirun that holds bit for bit: Horovod's MPI allreduce of
this small model is OpenMPI's recursive doubling, whose sums are the same whatever the order of
arrival. Under Gloo at 4 ranks the order of each element's sum varies between runs even without a
failure, so the weights are compared within a tolerance, with SGD: Adam scales the rounding noise on
a zero gradient up to whole steps (docs/reliability.md).
"""
import json
import os
import re
import time

import pytest

from hvdkit.common.checkpoint import CheckpointFiles
from steps import HERE
from test_faults import assert_no_orphans, names_rank

pytestmark = [pytest.mark.torch, pytest.mark.horovod, pytest.mark.slow]  # slow: launches ranks
# Gloo, SGD: weights of order 0.1-1 after 64 steps; summation-order rounding is about 1e-7 per step.
GLOO_ATOL = 1e-5


def _by_rank(result, prefix, index=None):
    """{rank: fields} of `PREFIX rank ...` lines; with index, only the index-th such line of each rank."""
    rows = {}
    for fields in (line.split() for line in result.lines(prefix)):
        rows.setdefault(int(fields[0]), []).append(fields[1:])
    return {r: v if index is None else v[index] for r, v in rows.items()}


@pytest.mark.parametrize("launcher,optimizer", [("mpirun", "adam"), ("horovodrun", "sgd")])
def test_kill_and_resume_at_4_ranks(ranks, tmp_path, launcher, optimizer):
    n, straight, killed_dir = 4, str(tmp_path / "straight"), str(tmp_path / "killed")
    killed = ranks(n, os.path.join(HERE, "ranks", "steps_torch.py"),
                   ["checkpoint", "--dir", killed_dir, "--kill-after", 1, "--optimizer", optimizer],
                   launcher=launcher, timeout=300)
    ended = time.time()
    out = killed.stdout + killed.stderr
    assert killed.returncode != 0, out[-3000:]
    assert re.search(names_rank(launcher, 3), out), out[-3000:]
    assert launcher != "mpirun" or "signal 9" in out, out[-3000:]
    files = CheckpointFiles(killed_dir)
    assert sorted(files.epochs()) == [0, 1], "epochs 1 and 2 of 4 saved, nothing after the kill"
    # Rank 3 dies just after the epoch-2 checkpoint, which is written (and dated) at the same step.
    took = ended - os.path.getmtime(files.path(1))
    print(f"{launcher} kill 4 ranks: checkpoint -> job exit {took:.2f} s")
    assert took < 15, "the job must end within 15 s of the failure (about 1 s measured; headroom for a loaded machine)"
    assert_no_orphans(killed_dir)
    saved = _by_rank(killed, "SAVED", index=1)  # epoch 2 (0-based 1) on each rank: [epoch, digest, path]

    both = ranks(n, os.path.join(HERE, "ranks", "faults_resume.py"), [straight, killed_dir, "--optimizer", optimizer],
                 launcher=launcher, timeout=300).check()
    starts, done = _by_rank(both, "START"), _by_rank(both, "DONE")
    assert sorted(starts) == sorted(done) == list(range(n)), both.stdout[-3000:]
    for rank in range(n):
        (fresh_start, resumed_start), (reference, resumed) = starts[rank], done[rank]
        assert fresh_start[0] == "0" and resumed_start[:3] == ["2", "1", str(2 * 64 // (n * 4))], \
            "resume at epoch 3, sampler epoch and LR-schedule step (2 epochs of 64 samples / 4 ranks / 4) restored"
        assert resumed_start[3] == saved[0][1], "restored weights differ from those rank 0 saved"
        if launcher == "mpirun":
            assert resumed[0] == reference[0] == done[0][1][0], \
                "resumed run must match the uninterrupted one bit for bit"
    if launcher == "horovodrun":
        runs = {tuple(fields[0] for fields in w) for w in _by_rank(both, "WEIGHTS").values()}
        assert len(runs) == 1, "ranks must end each run with the same weights"
        reference, resumed = map(json.loads, runs.pop())
        gap = max(abs(a - b) for a, b in zip(reference, resumed))
        print(f"gloo 4 ranks: resumed vs uninterrupted, largest weight difference {gap:.3g} of {len(reference)}")
        assert len(reference) == len(resumed) == 74 and gap <= GLOO_ATOL
