"""Step 7: only rank 0 writes; a job killed after epoch 2 of 4 resumes at epoch 3 on every rank with
exactly the saved weights, and finishes with the weights of an uninterrupted run."""
import os

import pytest

from hvdkit.common.checkpoint import CheckpointFiles
from steps import HERE, SCRIPTS

pytestmark = pytest.mark.slow  # launches ranks


def _rows(result, prefix):
    return [line.split() for line in result.lines(prefix)]


def _by_rank(result, prefix):
    """{rank: [fields after the rank, of each `PREFIX rank ...` line in order]}."""
    rows = {}
    for r in _rows(result, prefix):
        rows.setdefault(int(r[0]), []).append(r[1:])
    return rows


# Under mpirun (MPI controller) for both frameworks. Resuming under horovodrun's Gloo controller is
# tests/test_resume4.py's horovodrun case (4 ranks: epoch, sampler, LR step and rank 0's saved weights
# restored, the end within a tolerance of the uninterrupted run).
TORCH, TF = (pytest.mark.torch, pytest.mark.horovod), (pytest.mark.tensorflow, pytest.mark.horovod)
CASES = [pytest.param("torch", "mpirun", marks=TORCH), pytest.param("tensorflow", "mpirun", marks=TF)]


@pytest.mark.parametrize("framework,launcher", CASES)
def test_kill_and_resume(ranks, framework, launcher, tmp_path):
    n, script = 2, os.path.join(HERE, "ranks", SCRIPTS[framework])
    killed = ranks(n, script, ["checkpoint", "--dir", tmp_path / "b", "--kill-after", 1], launcher=launcher)
    assert killed.returncode != 0
    saved = {(int(r[0]), int(r[1])): r for r in _rows(killed, "SAVED")}
    assert sorted(CheckpointFiles(tmp_path / "b").epochs()) == [0, 1]  # epochs 1 and 2 of 4, 0-based
    assert all(saved[(0, e)][3] != "None" for e in (0, 1)), "rank 0 must write"
    assert all(saved[(1, e)][3] == "None" for e in (0, 1)), "only rank 0 may write"

    # One launch (a launch is mostly imports): the uninterrupted run in the empty "a", then the resumption in "b".
    both = ranks(n, os.path.join(HERE, "ranks", "faults_resume.py"),
                 [tmp_path / "a", tmp_path / "b", "--framework", framework], launcher=launcher).check()
    starts, done = _by_rank(both, "START"), _by_rank(both, "DONE")
    assert sorted(starts) == sorted(done) == [0, 1], both.stdout[-3000:]
    for rank in (0, 1):
        fresh, r = starts[rank]
        assert fresh[0] == "0", "the uninterrupted run starts at epoch 1"
        assert int(r[0]) == 2, "must resume at the epoch after the last saved one"
        assert int(r[1]) == 1, "data position (sampler epoch) restored"
        assert int(r[2]) == 16, "LR schedule / optimizer step restored (2 epochs x 8 steps)"
        assert r[3] == saved[(0, 1)][2], "restored weights differ from those saved"
    reference, final = {r: d[0] for r, d in done.items()}, {r: d[1] for r, d in done.items()}
    assert final[0][0] == final[1][0] == reference[0][0], "resumed run must match the uninterrupted one"
    assert final[0][1:] == ["epoch", "1"], "plain values come back in Checkpointer.values"
