"""The ResNet34 examples driven from outside by hvdkit's tools (issue 41), as a user drives them: `hvdkit scale`
(weak and strong) and `hvdkit timeline capture --steps A:B`, with no tooling option in the scripts.

Real launches of 1 and 2 ranks at 32 px. Each run record is checked against the per-step times its ranks
report (a rank's rate is its timed images over its timed seconds, the total their sum), the batches against
the command lines, and a trace of steps A..B-1 holds exactly B - A allreduces of each of ResNet34's 110
gradient tensors (36 convolutions' weights, 36 batch norms' weights and biases, the classifier's 2).
"""
import json
import math
import os
import re

import pytest

from conftest import ROOT, hvdkit_cli
from hvdkit.common.context import usable_cores
from hvdkit.scale import record
from hvdkit.timeline import summarize

pytestmark = [pytest.mark.slow, pytest.mark.horovod]

EXAMPLE = os.path.join(ROOT, "examples", "resnet34")
TORCH = os.path.join(EXAMPLE, "train_hvd_torch.py")
TF = os.path.join(EXAMPLE, "train_hvd.py")
RESNET34_TENSORS = 36 + 36 * 2 + 2


def check_record(rec, ranks, batch, steps):
    record.validate(rec)
    assert rec["ranks"] == ranks and rec["unit"] == "images"
    assert rec["batch_size"] == batch and rec["global_batch_size"] == batch * ranks
    assert rec["total_rate"] == pytest.approx(math.fsum(rec["rank_rates"]), rel=1e-9)
    for times, rate, mean in zip(rec["step_times"], rec["rank_rates"], rec["step_rate_mean"]):
        assert len(times) == steps and all(t > 0 for t in times)
        assert rate == pytest.approx(batch * steps / sum(times), rel=1e-9)
        assert mean == pytest.approx(sum(batch / t for t in times) / steps, rel=1e-9)
    slow = min(range(ranks), key=lambda r: rec["rank_rates"][r])
    assert rec["slowest_rank"] == {"rank": slow, "rate": rec["rank_rates"][slow]}
    assert math.isfinite(rec["loss"]) and rec["loss"] > 0
    assert rec["threads_per_rank"] == max(1, usable_cores() // ranks)  # what hvdkit's launch gave each rank


def ok(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.mark.torch
def test_scale_sweeps_the_torch_example(tmp_path):
    """The issue's command: scale.json, the table and the plot, from records the example wrote unasked."""
    ok(hvdkit_cli("scale", "-n", "1,2", "--out", "out", "--", "python", TORCH, "--image-size", 32, "--num-steps", 4,
                  cwd=tmp_path))
    out = tmp_path / "out"
    rows = json.loads((out / "scale.json").read_text())["rows"]
    assert [r["ranks"] for r in rows] == [1, 2] and json.loads((out / "scale.json").read_text())["unit"] == "images"
    for row in rows:
        rec = record.read(out / row["record"])
        check_record(rec, row["ranks"], batch=16, steps=4)  # the default batch; 2 untimed steps before the 4
        assert row["total_rate"] == rec["total_rate"] and rec["framework"] == "torch"
    assert rows[1]["speedup"] == pytest.approx(rows[1]["total_rate"] / rows[0]["total_rate"])
    assert "| ranks |" in (out / "scale.txt").read_text()
    assert (out / "scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "scale.pdf").read_bytes()[:5] == b"%PDF-"
    # Rank 0 alone shows every step: its time, images/s, loss, and from the first timed step the time left.
    log = (out / "logs" / "ranks-2.log").read_text()
    assert "2 rank(s) x 1 thread(s), batch 16 per rank" in log
    steps = re.findall(r"^step (\d)/6: .* img/s on rank 0, loss \d.*$", log, re.M)
    assert steps == [str(i) for i in range(1, 7)], log
    assert log.count("(untimed)") == 2 and len(re.findall(r"^rank \d: mean image/s", log, re.M)) == 2


@pytest.mark.torch
def test_strong_scaling_of_the_torch_example(tmp_path):
    """The global batch stays 8: the example's own --batch-size is 8 at 1 rank, 4 at 2 ranks."""
    ok(hvdkit_cli("scale", "-n", "1,2", "--strong", "--out", "s", "--", "python", TORCH, "--image-size", 32,
                  "--batch-size", 8, "--num-steps", 2, "--warmup-steps", 1, cwd=tmp_path))
    rows = json.loads((tmp_path / "s" / "scale.json").read_text())["rows"]
    assert [(r["ranks"], r["batch_size"], r["global_batch_size"]) for r in rows] == [(1, 8, 8), (2, 4, 8)]
    for row in rows:
        check_record(record.read(tmp_path / "s" / row["record"]), row["ranks"], batch=8 // row["ranks"], steps=2)
    assert " --batch-size 4 " in (tmp_path / "s" / "logs" / "ranks-2.log").read_text().splitlines()[0]


@pytest.mark.torch
def test_capture_of_the_torch_example_holds_the_chosen_steps(tmp_path):
    proc = ok(hvdkit_cli("timeline", "capture", "--steps", "2:4", "-o", "trace.json", "-n", 2, "--", "python", TORCH,
                         "--image-size", 32, "--batch-size", 4, "--num-steps", 3, "--warmup-steps", 1,
                         "--checkpoint-dir", "ck", cwd=tmp_path))
    assert "wrote trace.json: steps 2 to 3 on 2 rank(s)" in proc.stdout
    assert summarize(str(tmp_path / "trace.json"))["collectives"]["ALLREDUCE"]["count"] == 2 * RESNET34_TENSORS
    summary = ok(hvdkit_cli("timeline", "summary", "trace.json", cwd=tmp_path))
    assert summary.stdout.startswith("Horovod timeline trace.json")
    assert sorted(os.listdir(tmp_path)) == ["ck", "trace.json"]  # no staging left behind
    assert sorted(os.listdir(tmp_path / "ck")) == ["epoch-0000.ckpt", "epoch-0000.ckpt.sha256"]


@pytest.mark.tensorflow
def test_tensorflow_example_captured_and_recorded_at_once(tmp_path):
    """Steps 0-5 are hk.train_step's XLA trial (untimed): the window takes the 2 timed steps, cycles marked."""
    env = dict(os.environ, HVDKIT_RECORD=str(tmp_path / "run.json"))
    proc = ok(hvdkit_cli("timeline", "capture", "--steps", "6:8", "--mark-cycles", "-o", "tl.json", "-n", 2, "--",
                         "python", TF, "--image-size", 32, "--batch-size", 8, "--num-steps", 2, "--warmup-steps", 0,
                         cwd=tmp_path, env=env))
    assert "wrote tl.json: steps 6 to 7 on 2 rank(s)" in proc.stdout
    rec = record.read(tmp_path / "run.json")
    check_record(rec, ranks=2, batch=8, steps=2)
    assert rec["framework"] == "tensorflow" and rec["untimed_steps"] == 6
    assert re.fullmatch(r"XLA \d+ ms, no XLA \d+ ms per step: (no )?XLA", rec["notes"]["forward and backward pass"])
    d = summarize(str(tmp_path / "tl.json"))
    assert d["collectives"]["ALLREDUCE"]["count"] > 0 and d["cycles"]["count"] > 0
