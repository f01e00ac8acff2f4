"""Elastic training (examples/elastic): one of 3 workers is SIGKILLed mid-epoch; the other 2 roll back to the
last commit, re-form, and finish, and every sample of every epoch is trained on exactly once."""
import json
import os
import subprocess
import sys
import threading

import pytest

from hvdkit.scale import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "elastic")
pytestmark = [pytest.mark.torch, pytest.mark.horovod]

# 199 samples: the sampler pads to a multiple of the workers both at 3 (epoch 0) and 2 (the rest of
# epoch 0 after the kill, 103 samples; epoch 1), so a padded sample trained twice would be caught.
SAMPLES, BATCH, EPOCHS, COMMIT_EVERY, KILL_EPOCH, KILL_STEP = 199, 8, 2, 4, 0, 5


DISCOVER = os.path.join(EXAMPLE, "discover.sh")


def horovodrun(out, *extra, network=()):
    """(argv, env) of the elastic example on 3 workers (2 at least), writing its record to `out`."""
    env = launch.child_env(3, threads=1)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    argv = ["horovodrun", "-np", "3", "--min-np", "2", "--max-np", "3", "--host-discovery-script", DISCOVER,
            "--gloo-timeout-seconds", "10", *network,
            sys.executable, os.path.join(EXAMPLE, "train_elastic.py"), "--out", str(out),
            "--samples", str(SAMPLES), "--batch-size", str(BATCH), "--commit-every", str(COMMIT_EVERY), *extra]
    return argv, env


def assert_each_sample_once(rec, epochs):
    assert rec["epochs"] == epochs and len(rec["epoch_indices"]) == epochs and rec["final_size"] == 2
    for epoch, indices in enumerate(rec["epoch_indices"]):
        # Exactly once: no sample lost with the dead worker, none trained twice (the rolled-back steps,
        # the sampler's padding, a replayed epoch).
        assert sorted(indices) == list(range(SAMPLES)), f"epoch {epoch}: {len(indices)} samples, " \
            f"{len(set(indices))} distinct"
    assert [m["size"] for m in rec["memberships"]] == [3, 2], rec["memberships"]


def test_discovery_names_three_local_hosts():
    hosts = subprocess.run([DISCOVER], capture_output=True, text=True, check=True).stdout.split()
    assert hosts[:2] == ["localhost:1", "127.0.0.1:1"] and len(hosts) <= 3
    assert len(set(hosts)) == len(hosts)


@pytest.mark.slow
def test_killed_worker_training_finishes_on_two(tmp_path):
    hosts = subprocess.run([DISCOVER], capture_output=True, text=True).stdout.split()
    if len(hosts) < 3:
        pytest.skip(f"discover.sh found only {hosts}: this machine has no non-loopback IPv4 address")
    out = tmp_path / "run.json"
    argv, env = horovodrun(out, "--epochs", str(EPOCHS),
                           "--kill-rank", "1", "--kill-epoch", str(KILL_EPOCH), "--kill-step", str(KILL_STEP))
    proc = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240)
    log = f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, log
    assert os.path.exists(str(out) + ".killed"), "the worker never killed itself\n" + log
    assert "exit with status code 137" in proc.stdout + proc.stderr, log  # SIGKILL, seen by horovodrun
    rec = json.loads(out.read_text())

    assert_each_sample_once(rec, EPOCHS)

    members = rec["memberships"]
    # Closed form: the commit before the kill is after step COMMIT_EVERY * k <= KILL_STEP, at 3 workers.
    committed = (KILL_STEP // COMMIT_EVERY) * COMMIT_EVERY
    assert (members[1]["epoch"], members[1]["sample"]) == (KILL_EPOCH, committed * BATCH * 3), members
    assert members[1]["redone_samples"] == (KILL_STEP - committed) * BATCH * 3, members
    # Kill to resumed train(): at most the Gloo timeout (10 s here) when a survivor was waiting on another,
    # about 1 s otherwise (docs/elastic.md: 10.2-10.7 s and 1.3 s measured); 5 s of headroom for a loaded
    # machine. A regression to Horovod's 30 s default or its 600 s elastic timeout fails.
    killed_at = float((tmp_path / "run.json.killed").read_text())
    resumed = members[1]["time"] - killed_at
    print(f"kill -> survivors resumed: {resumed:.1f} s")
    assert resumed < 15, f"the survivors took {resumed:.1f} s to resume (Gloo timeout 10 s + 5 s headroom)"
    assert rec["mse"][-1] < rec["mse"][0], rec["mse"]


@pytest.mark.slow
def test_host_removed_by_discovery_training_goes_on_without_replay(tmp_path):
    """A graceful scale-down: the discovery script stops listing a slot. Horovod then skips the state sync,
    and its ElasticSampler, not re-dealt, would replay the epoch (horovod issue #3399); the example's
    reset callback re-deals it. (The change lands at a mid-epoch commit in about 4 runs out of 5; at an
    epoch's end the sampler is fresh anyway.)

    Horovod runs the discovery script every second and tells the workers at their next commit: measured
    0.3-0.6 s from the edit to the reset here. Unpaced, this model's 30 epochs took ~4 s and a loaded CI
    machine once finished them before the removal arrived; 50 ms steps give it at least 20 epochs x 9
    steps x 50 ms = 9 s at 3 workers (measured: 0.98 s per epoch at 3 workers, 0.67-0.84 s at 2)."""
    hosts, out, epochs = tmp_path / "hosts", tmp_path / "run.json", 20
    hosts.write_text("localhost:3\n")
    argv, env = horovodrun(out, "--epochs", str(epochs), "--min-step-seconds", "0.05",
                           network=("--network-interface", "lo"))
    env["ELASTIC_HOSTS"] = str(hosts)  # one host: Horovod needs the interface named to start
    proc = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    timer = threading.Timer(240, proc.kill)
    timer.start()
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if "epoch 0:" in line:
                hosts.write_text("localhost:2\n")
        proc.wait()
    finally:
        timer.cancel()
    log = "".join(lines)[-4000:]
    assert proc.returncode == 0, log
    assert "localhost[2] has been removed from elastic job" in log, log
    rec = json.loads(out.read_text())
    assert_each_sample_once(rec, epochs)
    assert rec["memberships"][1]["redone_samples"] == 0, rec["memberships"]  # nothing is rolled back
