"""hvdkit.scale.meter: the progress lines (time, images/s, loss, time left), and the report and run record
built from every rank's summary. A scripted clock makes every figure a literal."""
import io
import json

import pytest

from hvdkit.scale import meter, record


def _run(monkeypatch, rank=0):
    ticks = iter([0.0, 3.0, 5.0, 6.0, 7.5])  # the meter's creation, then the end of steps 1-4
    monkeypatch.setattr(meter.time, "perf_counter", lambda: next(ticks))
    out = io.StringIO()
    m = meter.Meter(total_steps=4, untimed_steps=1, batch_size=8, rank=rank, out=out)
    m.say("banner", None)
    for loss in (2.0, 1.5, 1.0, 0.5):
        m.step(loss)
    return m, out


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


def test_report_and_record_from_every_rank(monkeypatch, tmp_path):
    m, out = _run(monkeypatch)
    other = dict(m.summary(), times=[4.0, 4.0, 4.0], rate=2.0, step_rate_mean=2.0, step_rate_std=0.0)
    rec = m.finish([m.summary(), other], 1.25, tmp_path / "run.json", 3, program="p.py", framework="torch")
    assert record.read(tmp_path / "run.json") == json.loads(json.dumps(rec))
    assert rec["ranks"] == 2 and rec["total_rate"] == pytest.approx(24 / 4.5 + 2.0)
    assert rec["slowest_rank"] == {"rank": 1, "rate": 2.0} and rec["global_batch_size"] == 16
    assert rec["threads_per_rank"] == 3 and rec["loss"] == 1.25
    assert rec["timed_steps"] == 3 and rec["untimed_steps"] == 1
    assert rec["step_times"] == [[2.0, 1.0, 1.5], [4.0, 4.0, 4.0]] and rec["framework"] == "torch"
    report = out.getvalue().splitlines()[5:]
    assert report[1] == "rank 1: mean image/s = 2.00 standard deviation: 0.00 (rank rate 2.00 img/s)"
    assert report[2].startswith("total: 7.33 img/s on 2 rank(s) (sum of rank rates); slowest rank 1 2.00, ")
    assert report[3] == "loss: 1.2500 (mean over all ranks' timed steps)"
    assert report[4] == f"record: {tmp_path / 'run.json'}"


def test_other_ranks_print_nothing(monkeypatch):
    m, out = _run(monkeypatch, rank=1)
    assert out.getvalue() == "" and m.finish([m.summary()], 1.0) is None


def test_no_timed_step_is_refused():
    with pytest.raises(ValueError, match="leave none to time"):
        meter.Meter(total_steps=2, untimed_steps=2, batch_size=8)
