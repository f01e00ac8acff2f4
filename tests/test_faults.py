"""A rank that raises or is SIGKILLed mid-training: the job ends non-zero within 15 s, the failed rank is
named, and no rank is left running -- under mpirun and under horovodrun's Gloo controller, raise and
SIGKILL, at 2 and 4 ranks, torch and TF. (SIGKILL at 4 ranks, under mpirun and under horovodrun, is the
killed run of tests/test_resume4.py.)"""
import os
import re
import time

import pytest

from steps import HERE

pytestmark = [pytest.mark.horovod, pytest.mark.slow]  # slow: launches ranks
TORCH = pytest.mark.torch
TF = pytest.mark.tensorflow


def leftovers(marker):
    """PIDs of processes whose command line contains `marker` (ranks of a job that has ended)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def assert_no_orphans(marker):
    deadline = time.time() + 10  # the launcher's SIGTERM/SIGKILL may land just after it returns
    while leftovers(marker) and time.time() < deadline:
        time.sleep(0.2)
    assert not leftovers(marker), f"ranks left running after the job ended: {leftovers(marker)}"


def names_rank(launcher, rank):
    """The launcher's report of the failed rank: horovodrun `Process name: R`, mpirun `process rank R` or
    `[[job,1],R]`."""
    return rf"Process name: {rank}\b" if launcher == "horovodrun" else rf"(process rank {rank} |\[\[\d+,1\],{rank}\])"


# (framework, launcher, mode, ranks, failing rank); 4 ranks are oversubscribed on 2 cores.
CASES = [
    pytest.param("torch", "mpirun", "raise", 2, 1, marks=TORCH),
    pytest.param("torch", "mpirun", "kill", 2, 1, marks=TORCH),
    pytest.param("torch", "horovodrun", "raise", 2, 1, marks=TORCH),
    pytest.param("torch", "horovodrun", "kill", 2, 1, marks=TORCH),
    pytest.param("torch", "horovodrun", "raise", 4, 2, marks=TORCH),
    pytest.param("torch", "mpirun", "raise", 4, 2, marks=TORCH),
    pytest.param("tf", "mpirun", "raise", 2, 1, marks=TF),
]


@pytest.mark.parametrize("framework,launcher,mode,n,failing", CASES)
def test_failed_rank_ends_the_job(ranks, tmp_path, framework, launcher, mode, n, failing):
    script = os.path.join(HERE, "ranks", f"faults_{framework}.py")
    marker = str(tmp_path)  # on every rank's command line, and nowhere else
    result = ranks(n, script, [mode, "--rank", failing, "--tag", marker], launcher=launcher, timeout=240)
    ended = time.time()
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-3000:]
    assert len(result.lines("READY")) == n, f"not every rank started\n{out[-3000:]}"
    fails = result.lines("FAIL")
    assert len(fails) == 1 and fails[0].split()[0] == str(failing), out[-3000:]
    took = ended - float(fails[0].split()[1])
    print(f"{framework} {launcher} {mode} {n} ranks: failure -> job exit {took:.2f} s")
    assert took < 15, "the job must end within 15 s of the failure (0.2-1.1 s measured; headroom for a loaded machine)"
    assert not result.lines("NEVER")
    if mode == "raise":
        assert f"hvdkit: rank {failing} of {n} failed" in out and "deliberate failure" in out, out[-3000:]
        # The failed rank, not a bystander that hit "Horovod has been shut down", is the one reported.
        assert not re.search(rf"rank (?!{failing} )\d+ of {n} failed", out) and "HorovodInternalError" not in out
    assert re.search(names_rank(launcher, failing), out), out[-3000:]
    assert_no_orphans(marker)


@TORCH
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
