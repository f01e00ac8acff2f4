"""A rank that raises or is SIGKILLed mid-training: the job ends non-zero within 60 s, the failed rank is
named, and no rank is left running -- under mpirun and under horovodrun's Gloo controller."""
import os
import re
import time

import pytest

from steps import HERE

SCRIPT = os.path.join(HERE, "ranks", "faults_torch.py")
pytestmark = [pytest.mark.torch, pytest.mark.horovod]


def alive(pid, marker):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return marker.encode() in f.read()
    except OSError:
        return False


def assert_no_orphans(result, marker):
    pids = [int(line.split()[1]) for line in result.lines("READY")]
    assert pids, f"no rank started\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    deadline = time.time() + 10  # the launcher's SIGTERM/SIGKILL may land just after it returns
    while any(alive(p, marker) for p in pids) and time.time() < deadline:
        time.sleep(0.2)
    assert not [p for p in pids if alive(p, marker)], "ranks left running after the job ended"


@pytest.mark.parametrize("launcher,mode,n", [("mpirun", "raise", 2), ("horovodrun", "raise", 2),
                                             ("horovodrun", "kill", 2)])
def test_failed_rank_ends_the_job(ranks, tmp_path, launcher, mode, n):
    script = tmp_path / f"faults_{mode}_{launcher}.py"  # a unique command line to look for orphans by
    script.write_text(open(SCRIPT).read())
    result = ranks(n, str(script), [mode, "--rank", 1], launcher=launcher, timeout=180)
    ended = time.time()
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-3000:]
    fails = result.lines("FAIL")
    assert len(fails) == 1 and fails[0].split()[0] == "1", out[-3000:]
    assert ended - float(fails[0].split()[1]) < 60, "the job must end within 60 s of the failure"
    assert not result.lines("NEVER")
    if mode == "raise":
        assert f"hvdkit: rank 1 of {n} failed" in out and "deliberate failure" in out
        # The failed rank, not a bystander that hit "Horovod has been shut down", is the one reported.
        assert f"rank 0 of {n} failed" not in out and "HorovodInternalError" not in out
    named = r"Process name: 1\b" if launcher == "horovodrun" else r"(process rank 1 |\[\[\d+,1\],1\])"
    assert re.search(named, out), out[-3000:]
    assert_no_orphans(result, str(script))



def test_stalled_collective_is_named_and_aborts(ranks):
    """A rank skipping a collective: Horovod's stall inspector names the tensor each rank is missing after
    HOROVOD_STALL_CHECK_TIME_SECONDS, and HOROVOD_STALL_SHUTDOWN_TIME_SECONDS ends the job instead of a hang."""
    env = {**os.environ, "HOROVOD_STALL_CHECK_TIME_SECONDS": "2", "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS": "6"}
    result = ranks(2, os.path.join(HERE, "ranks", "stall_torch.py"), env=env, timeout=180,
                   extra=("-x", "HOROVOD_STALL_CHECK_TIME_SECONDS", "-x", "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS"))
    ended = time.time()
    err = " ".join(re.sub(r"\[\d+,\d+\]<stderr>:", "", result.stderr).split())
    assert result.returncode != 0 and not result.lines("NEVER"), err[-3000:]
    assert "Missing ranks: 0: [allreduce.loss.after] 1: [allreduce.grad.skipped_by_rank1]" in err, err[-3000:]
    assert "stalled for longer than 6 seconds" in err
    assert "hvdkit: rank 0 of 2 stopped" in err and "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS" in err
    stalled = min(float(line.split()[1]) for line in result.lines("STALL"))
    assert ended - stalled < 40, f"the job must end soon after the 6 s stall shutdown, took {ended - stalled:.0f} s"
