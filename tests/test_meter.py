"""hvdkit.scale.meter: the progress lines (time, images/s, loss, time left), the report and run record built
from every rank's summary, and what a job's meter does from the environment (the record, the timeline
window). A scripted clock makes every figure a literal; a stand-in Horovod module plays the other rank."""
import io
import json

import pytest

from hvdkit.common.context import Context
from hvdkit.scale import job, meter, record

# perf_counter at the meter's creation, then at the end of each of 4 steps and after its line: the meter's own
# printing (0.5 s after step 1) belongs to no step.
TICKS = [0.0, 3.0, 3.5, 5.5, 5.5, 6.5, 6.5, 8.0, 8.0]


def _run(monkeypatch, rank=0):
    ticks = iter(TICKS)
    monkeypatch.setattr(meter.time, "perf_counter", lambda: next(ticks))
    out = io.StringIO()
    m = meter.Meter(total_steps=4, untimed_steps=1, batch_size=8, rank=rank, out=out)
    m.say("banner", None)
    for loss in (2.0, 1.5, 1.0, 0.5):
        m.step(loss)
    return m, out


@pytest.fixture(autouse=True)
def no_job(monkeypatch):
    monkeypatch.setattr(job, "_job", None)
    monkeypatch.delenv("HVDKIT_RECORD", raising=False)
    monkeypatch.delenv("HVDKIT_TIMELINE", raising=False)


def test_progress_lines_with_time_left_from_the_first_timed_step(monkeypatch):
    m, out = _run(monkeypatch)
    assert out.getvalue().splitlines() == [
        "banner",
        "step 1/4: 3.00 s, 2.7 img/s on rank 0, loss 2.0000 (untimed)",
        "step 2/4: 2.00 s, 4.0 img/s on rank 0, loss 1.5000, 0:04 left",  # 2 steps left x 2.0 s
        "step 3/4: 1.00 s, 8.0 img/s on rank 0, loss 1.0000, 0:02 left",  # 1 step left x mean(2.0, 1.0)
        "step 4/4: 1.50 s, 5.3 img/s on rank 0, loss 0.5000",
    ]
    assert m.loss_pair() == (24.0, 24)  # (1.5 + 1.0 + 0.5) x 8 images, 3 timed steps x 8
    mine = m.summary()
    assert mine["times"] == [2.0, 1.0, 1.5] and mine["rate"] == pytest.approx(24 / 4.5)
    assert mine["step_rate_mean"] == pytest.approx((4.0 + 8.0 + 8 / 1.5) / 3)


def test_a_sequential_run_writes_its_record_where_the_environment_says(monkeypatch, tmp_path):
    m, out = _run(monkeypatch)
    monkeypatch.setenv("HVDKIT_RECORD", str(tmp_path / "run.json"))
    rec = m.finish(1.25, framework="torch")
    assert record.read(tmp_path / "run.json") == json.loads(json.dumps(rec))
    assert rec["ranks"] == 1 and rec["total_rate"] == pytest.approx(24 / 4.5) and rec["framework"] == "torch"
    assert rec["versions"]["hvdkit"] and rec["program"] and "threads_per_rank" not in rec
    assert out.getvalue().splitlines()[-1] == f"record: {tmp_path / 'run.json'}"


class _Hvd:
    """Horovod as a 2-rank job's rank 0 sees it: the other rank's summary comes from allgather_object."""

    def __init__(self, other=None):
        self.other, self.calls = other, []

    def allgather_object(self, obj):
        return [obj, self.other]

    def rank(self):
        return 0

    def size(self):
        return 2

    def is_initialized(self):
        return True

    def start_timeline(self, path, mark_cycles=False):
        self.calls.append(("start", path, mark_cycles))

    def stop_timeline(self):
        self.calls.append(("stop",))


def _attach(monkeypatch, hvd):
    ctx = Context(rank=0, size=2, local_rank=0, local_size=2, device="cpu", threads=3)
    monkeypatch.setattr(job, "_job", job.Job(ctx, hvd, "torch"))
    return job._job


OTHER = {"host": "h", "cpu_count": 2, "affinity": 1, "times": [4.0, 4.0, 4.0], "batch": 8, "rate": 2.0,
         "step_rate_mean": 2.0, "step_rate_std": 0.0}  # rank 1's summary()


def test_in_a_job_the_report_and_record_cover_every_rank(monkeypatch, tmp_path):
    j = _attach(monkeypatch, _Hvd(OTHER))
    j.notes["forward and backward pass"] = "XLA 10 ms, no XLA 20 ms per step: XLA"
    m, out = _run(monkeypatch)
    rec = m.finish(1.25, tmp_path / "run.json", framework="torch")
    assert record.read(tmp_path / "run.json") == json.loads(json.dumps(rec))
    assert rec["ranks"] == 2 and rec["total_rate"] == pytest.approx(24 / 4.5 + 2.0)
    assert rec["slowest_rank"] == {"rank": 1, "rate": 2.0} and rec["global_batch_size"] == 16
    assert rec["threads_per_rank"] == 3 and rec["device"] == "cpu" and rec["loss"] == 1.25
    assert rec["timed_steps"] == 3 and rec["untimed_steps"] == 1
    assert rec["step_times"] == [[2.0, 1.0, 1.5], [4.0, 4.0, 4.0]] and rec["hosts"] == 2
    lines = out.getvalue().splitlines()
    assert lines[0] == "2 rank(s) x 3 thread(s), batch 8 per rank"  # the job's line, before the script's own
    report = lines[6:]
    assert report[1] == "rank 1: mean image/s = 2.00 standard deviation: 0.00 (rank rate 2.00 img/s)"
    assert report[2].startswith("total: 7.33 img/s on 2 rank(s) (sum of rank rates); slowest rank 1 2.00, ")
    assert report[3] == "forward and backward pass: XLA 10 ms, no XLA 20 ms per step: XLA"
    assert report[4] == "loss: 1.2500 (mean over all ranks' timed steps)"
    assert report[5] == f"record: {tmp_path / 'run.json'}"


def test_other_ranks_print_nothing(monkeypatch):
    m, out = _run(monkeypatch, rank=1)
    assert out.getvalue() == "" and m.finish(1.0) is None


def test_no_timed_step_is_refused():
    with pytest.raises(ValueError, match="leave none to time"):
        meter.Meter(total_steps=2, untimed_steps=2, batch_size=8)


def test_the_timeline_window_the_environment_asks_for_follows_the_steps(monkeypatch, tmp_path):
    """HOROVOD_TIMELINE records from init; the window stops it at the first step and records steps 2..3."""
    hvd = _Hvd(OTHER)
    _attach(monkeypatch, hvd)
    path, report = str(tmp_path / "t.json"), tmp_path / "report.json"
    monkeypatch.setenv("HOROVOD_TIMELINE", path)
    monkeypatch.setenv("HVDKIT_TIMELINE", path)
    monkeypatch.setenv("HVDKIT_TIMELINE_STEPS", "2:4")
    monkeypatch.setenv("HVDKIT_TIMELINE_REPORT", str(report))
    monkeypatch.setenv("HOROVOD_TIMELINE_MARK_CYCLES", "1")
    m = meter.Meter(total_steps=6, untimed_steps=1, batch_size=8, out=io.StringIO())
    assert hvd.calls == [("stop",)]
    seen = []
    for step in range(6):
        seen.append(len(hvd.calls))
        m.step(1.0)
    # Started when step 2 was about to run (after 2 steps), stopped after step 3 (4 steps done).
    assert hvd.calls == [("stop",), ("start", path, True), ("stop",)] and seen == [1, 1, 2, 2, 3, 3]
    m.finish(1.0)
    assert json.loads(report.read_text()) == {"path": path, "steps": [2, 4], "recorded": [2, 4], "steps_run": 6,
                                              "ranks": 2}


def test_progress_meters_a_loop_across_passes_and_publishes_when_asked(monkeypatch, tmp_path):
    ticks = iter([float(t) for t in range(100)])  # each call one second later
    monkeypatch.setattr(meter.time, "perf_counter", lambda: next(ticks))
    j = _attach(monkeypatch, _Hvd())
    j.ctx = Context(rank=0, size=1, local_rank=0, local_size=1, device="cpu", threads=2)
    monkeypatch.setenv("HVDKIT_RECORD", str(tmp_path / "run.json"))
    batches = [([0.0] * 4, [0] * 4)] * 3 + [([0.0] * 2, [0] * 2)]  # 4 batches, the last one short
    for epoch in range(2):
        assert list(meter.progress(batches)) == batches
    rec = record.read(tmp_path / "run.json")
    # 8 steps, the first 2 untimed; each step 1 s (the clock is read once when a step ends and once after).
    assert rec["unit"] == "samples" and rec["timed_steps"] == 6 and rec["untimed_steps"] == 2
    assert rec["step_times"] == [[1.0] * 6] and rec["total_rate"] == pytest.approx((4 + 4 + 2 + 4 + 4 + 2) / 6)
    assert j.steps == 8 and rec["framework"] == "torch" and rec["threads_per_rank"] == 2
