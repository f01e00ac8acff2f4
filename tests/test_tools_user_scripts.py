"""hvdkit's tools on a user's own scripts, written here from scratch (issue 41): one on hvdkit's API (its loop
under hk.progress), one on Horovod's API only. `hvdkit scale` and `hvdkit timeline capture` drive both from
outside; on the plain Horovod script they say in one line what they cannot measure there.

Expected values are literals from the scripts' sizes: 96 samples, batches of 8, 2 epochs, a model of 4
parameter tensors (two Linear layers' weights and biases), so one step is 4 allreduces.
"""
import json
import os

import pytest

from conftest import hvdkit_cli
from hvdkit.scale import record
from hvdkit.timeline import summarize

pytestmark = [pytest.mark.slow, pytest.mark.horovod, pytest.mark.torch]

MODEL = "torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))"
HVDKIT_SCRIPT = f'''"""A user's trainer on hvdkit's API: the eight steps, and hk.progress around the batches."""
import argparse
import torch
import hvdkit.torch as hk

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=8)
args = p.parse_args()
hk.init(seed=0)
data = torch.utils.data.TensorDataset(torch.randn(96, 16), torch.randint(0, 4, (96,)))
loader = hk.shard(data, args.batch_size)
model = {MODEL}
opt = hk.distributed_optimizer(torch.optim.SGD(model.parameters(), lr=hk.scale_lr(0.01)), model)
hk.broadcast_state(model, opt)
for epoch in range(2):
    loader.set_epoch(epoch)
    for x, y in hk.progress(loader, disable=True):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
'''
HOROVOD_SCRIPT = f'''"""A user's trainer on Horovod's API only."""
import argparse
import torch
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=8)
args = p.parse_args()
hvd.init()
torch.manual_seed(0)
model = {MODEL}
opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size()),
                               named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
for step in range(96 // (args.batch_size * hvd.size())):
    x, y = torch.randn(args.batch_size, 16), torch.randint(0, 4, (args.batch_size,))
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
print(f"rank {{hvd.rank()}}: batch {{args.batch_size}}")
'''


def ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture
def scripts(tmp_path):
    (tmp_path / "mine.py").write_text(HVDKIT_SCRIPT)
    (tmp_path / "plain.py").write_text(HOROVOD_SCRIPT)
    return tmp_path


def test_a_script_on_hvdkits_api_is_swept_and_traced_by_steps(scripts):
    """Strong scaling: a global batch of 8, so 12 steps an epoch at 1 rank (batch 8) and at 2 (batch 4 each)."""
    ok(hvdkit_cli("scale", "-n", "1,2", "--strong", "--out", "out", "--", "python", "mine.py", "--batch-size", 8,
                  cwd=scripts))
    rows = json.loads((scripts / "out" / "scale.json").read_text())["rows"]
    for row in rows:
        rec = record.read(scripts / "out" / row["record"])
        batch = 8 // row["ranks"]
        assert rec["unit"] == "samples" and rec["batch_size"] == batch and rec["global_batch_size"] == 8
        assert rec["timed_steps"] == 2 * 12 - 2 and rec["untimed_steps"] == 2  # 2 epochs, the first 2 steps untimed
        assert all(len(times) == rec["timed_steps"] for times in rec["step_times"]) and rec["framework"] == "torch"
        rates = [batch * len(times) / sum(times) for times in rec["step_times"]]
        assert rec["rank_rates"] == pytest.approx(rates, rel=1e-9)
    log = (scripts / "out" / "logs" / "ranks-2.log").read_text()
    assert log.count("rank 1: mean sample/s = ") == 2  # the per-rank report after each epoch

    proc = ok(hvdkit_cli("timeline", "capture", "--steps", "3:7", "-o", "t.json", "-n", 2, "--", "python", "mine.py",
                         cwd=scripts))
    assert "wrote t.json: steps 3 to 6 on 2 rank(s)" in proc.stdout
    collectives = summarize(str(scripts / "t.json"))["collectives"]
    assert list(collectives) == ["ALLREDUCE"] and collectives["ALLREDUCE"]["count"] == 4 * 4  # 4 steps' gradients


def test_a_plain_horovod_script_is_measured_as_far_as_it_can_be(scripts):
    proc = ok(hvdkit_cli("scale", "-n", "1,2", "--strong", "--out", "out", "--", "python", "plain.py",
                         "--batch-size", 8, cwd=scripts))
    notes = [line for line in proc.stdout.splitlines() if "wrote no run record" in line]
    assert notes == ["note: plain.py wrote no run record (its steps do not run through hvdkit's Meter or "
                     "hk.progress): rates are whole launches per second, start-up included; per-rank rates and "
                     "step times cannot be measured there"]
    rows = json.loads((scripts / "out" / "scale.json").read_text())["rows"]
    walls = [record.read(scripts / "out" / r["record"])["wall_seconds"] for r in rows]
    assert [(r["batch_size"], r["global_batch_size"]) for r in rows] == [(8, 8), (4, 8)]
    assert rows[1]["speedup"] == pytest.approx(walls[0] / walls[1])  # strong scaling: the same work, sooner
    assert [r["slowest_rank"] for r in rows] == [None, None]
    assert "rank 1: batch 4" in (scripts / "out" / "logs" / "ranks-2.log").read_text()  # its own option, rewritten

    proc = ok(hvdkit_cli("timeline", "capture", "--steps", "1:3", "-o", "t.json", "--", "mpirun", "-n", 2,
                         "python", "plain.py", cwd=scripts))
    notes = [line for line in proc.stdout.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith("note: plain.py ran no step through hvdkit's Meter or "
                                                   "hk.progress (a plain Horovod script?): t.json (")
    assert notes[0].endswith("holds the whole run as HOROVOD_TIMELINE records it, not steps 1:3")
    # The whole run: the initial broadcast too, which a window of steps would not hold.
    assert summarize(str(scripts / "t.json"))["collectives"]["BROADCAST"]["count"] == 4
    assert sorted(os.listdir(scripts)) == ["mine.py", "out", "plain.py", "t.json"]
