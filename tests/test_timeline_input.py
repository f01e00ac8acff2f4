"""hvdkit timeline on hand-written traces (closed-form answers) and on bad input (one line, exit 2)."""
import json
import os
import subprocess
import sys

import pytest

from hvdkit.cli import main
from hvdkit.timeline import Trace, TraceError, summarize
from hvdkit.timeline.summary import tensor_bytes
from hvdkit.timeline.window import parse_time
from hvdkit.timeline.capture import parse_steps


def _horovod_trace(events, names):
    """Records in Horovod 0.28's layout: header, tensor-name metadata, then events."""
    records = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1}},
               {"name": "process_sort_index", "ph": "M", "pid": 0, "args": {"sort_index": 0}}]
    for pid, name in names.items():
        records.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})
    return records + events


def B(pid, name, ts):
    return {"ph": "B", "name": name, "ts": ts, "pid": pid}


def E(pid, ts, shape=None, dtype="float32"):
    r = {"ph": "E", "ts": ts, "pid": pid}
    if shape is not None:
        r["args"] = {"dtype": dtype, "shape": shape}
    return r


def X(pid, rank, ts):
    return {"ph": "X", "name": str(rank), "ts": ts, "pid": pid, "dur": 0}


def CYCLE(ts):
    return {"ph": "i", "name": "CYCLE_START", "ts": ts, "s": "g"}


# Step 1: a and b negotiated (rank 2 late by 500 us on both), then fused into one MPI_ALLREDUCE.
# Step 2: c negotiated with all ticks within 30 us (no straggler), reduced alone (no fusion buffer).
EVENTS = [
    CYCLE(0),
    B(1, "NEGOTIATE_ALLREDUCE", 100), X(1, 0, 100), X(1, 1, 105),
    B(2, "NEGOTIATE_ALLREDUCE", 110), X(2, 0, 110), X(2, 1, 130),
    X(1, 2, 600), E(1, 610), X(2, 2, 620), E(2, 630),
    CYCLE(1000),
    B(1, "ALLREDUCE", 1000), B(2, "ALLREDUCE", 1001),
    B(1, "MEMCPY_IN_FUSION_BUFFER", 1002), B(2, "MEMCPY_IN_FUSION_BUFFER", 1002), E(1, 1010), E(2, 1010),
    B(1, "MPI_ALLREDUCE", 1011), B(2, "MPI_ALLREDUCE", 1011), E(1, 1411), E(2, 1411),
    B(1, "MEMCPY_OUT_FUSION_BUFFER", 1412), B(2, "MEMCPY_OUT_FUSION_BUFFER", 1412), E(1, 1420), E(2, 1420),
    E(1, 1430, "[16, 8]"), E(2, 1431, "[16]"),
    CYCLE(2000),
    B(3, "NEGOTIATE_ALLREDUCE", 2000), X(3, 2, 2000), X(3, 0, 2010), X(3, 1, 2030), E(3, 2031),
    B(3, "ALLREDUCE", 2100), B(3, "MPI_ALLREDUCE", 2101), E(3, 2301), E(3, 2310, "[4]", "float64"),
    CYCLE(3000),
]
NAMES = {1: "grad.a", 2: "grad.b", 3: "grad.c"}


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(_horovod_trace(EVENTS, NAMES)))
    return str(path)


def test_hand_written_trace_closed_form(trace_file):
    d = summarize(trace_file)
    assert d["wall_us"] == 3000
    assert d["collectives"]["ALLREDUCE"] == {"kind": "operation", "count": 3, "tensor_us": 430 + 430 + 210,
                                             "wall_us": 431 + 210, "mean_us": 1070 / 3,
                                             "bytes": 4 * 128 + 4 * 16 + 8 * 4}
    assert d["activities"]["MPI_ALLREDUCE"]["wall_us"] == 400 + 200
    assert d["communication"]["busy_us"] == 641 and d["communication"]["busy_share"] == 641 / 3000
    assert d["communication"]["negotiation_us"] == (630 - 100) + (2031 - 2000)
    assert d["fusion"]["MPI_ALLREDUCE"] == {"collectives": 2, "tensors": 3, "mean_tensors": 1.5, "max_tensors": 2,
                                            "fused": 1, "histogram": {"1": 1, "2": 1},
                                            "mean_bytes": (512 + 64 + 32) / 2}
    n = d["negotiation"]
    assert (n["count"], n["with_rank_ticks"], n["ties"], n["most_often_last"]) == (3, 3, 1, "2")
    assert n["ranks"]["2"] == {"ticks": 3, "last": 2, "mean_lateness_us": (500 + 510 + 0) / 3, "max_lateness_us": 510}
    assert n["ranks"]["1"]["last"] == 0 and n["ranks"]["1"]["max_lateness_us"] == 30
    assert d["cycles"] == {"count": 4, "busy": 2, "mean_us": 1000, "min_us": 1000, "p50_us": 1000, "p95_us": 1000,
                           "max_us": 1000}
    by_bytes = [t["name"] for t in d["tensors"]["top_by_bytes"]]
    assert by_bytes == ["grad.a", "grad.b", "grad.c"]
    # a and b both took 430 us (ties go by name), c 210 us.
    assert [(t["name"], t["op_us"]) for t in d["tensors"]["top_by_time"]] == [
        ("grad.a", 430), ("grad.b", 430), ("grad.c", 210)]


def test_gap_threshold_decides_the_straggler(trace_file):
    # With a 1 ms threshold, rank 2's 500 us lag in step 1 no longer counts as straggling.
    n = summarize(trace_file, gap_us=1000)["negotiation"]
    assert n["ties"] == 3 and n["most_often_last"] is None


def test_text_report_names_the_answers(trace_file, capsys):
    assert main(["timeline", "summary", trace_file]) == 0
    out = capsys.readouterr().out
    assert "most often last ready: rank 2 (2 times)" in out
    assert "MPI_ALLREDUCE: 2 collectives carried 3 tensors" in out
    assert "cycles: 4 CYCLE_START marks" in out


def test_intervals_cut_off_then_restarted_are_abandoned(tmp_path):
    # A job stopped mid-allreduce, and the same tensor's next negotiation begins (e.g. traces pasted together).
    events = [B(1, "NEGOTIATE_ALLREDUCE", 0), E(1, 10), B(1, "ALLREDUCE", 20), B(1, "MPI_ALLREDUCE", 21),
              B(1, "NEGOTIATE_ALLREDUCE", 100), E(1, 110), B(1, "ALLREDUCE", 120), B(1, "MPI_ALLREDUCE", 121),
              E(1, 221), E(1, 230, "[2]")]
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(_horovod_trace(events, {1: "grad.a"})))
    d = summarize(str(path))
    assert d["abandoned"] == 2 and d["open_at_end"] == 0
    assert d["collectives"]["ALLREDUCE"]["count"] == 1 and d["collectives"]["ALLREDUCE"]["tensor_us"] == 110
    assert d["communication"]["busy_us"] == 110 and d["activities"]["MPI_ALLREDUCE"]["wall_us"] == 100
    assert d["communication"]["negotiation_us"] == 20 and d["negotiations"]["NEGOTIATE_ALLREDUCE"]["count"] == 2
    assert d["collectives"]["ALLREDUCE"]["bytes"] == 8


def test_tensor_bytes_from_end_args():
    assert tensor_bytes({"dtype": "float16", "shape": "[3, 5]"}) == 30
    assert tensor_bytes({"dtype": "int64", "shape": "[]"}) == 8  # a scalar
    assert tensor_bytes({"dtype": "<unknown>", "shape": "[3]"}) is None
    assert tensor_bytes({"dtype": "float32", "shape": "[?, 3]"}) is None
    assert tensor_bytes({}) is None and tensor_bytes(None) is None


def test_reader_splits_anywhere(trace_file, tmp_path):
    records = json.load(open(trace_file))
    for chunk in (1, 2, 7, 64):
        assert list(Trace(trace_file, chunk_chars=chunk)) == records
    spaced = tmp_path / "spaced.json"
    spaced.write_text("\ufeff [ \n" + " ,\n ".join(json.dumps(r) for r in records) + " ]\n\n")
    assert list(Trace(str(spaced), chunk_chars=5)) == records


def test_time_and_step_parsing():
    assert parse_time("2.5") == 2.5e6 and parse_time("250ms") == 250e3 and parse_time("1500us") == 1500
    assert parse_steps("20:30") == (20, 30) and parse_steps((0, 1)) == (0, 1)
    for bad in ("30:20", "5", "a:b", "3:3", "-1:2"):
        with pytest.raises(ValueError, match="A:B|0 <= A < B"):
            parse_steps(bad)
    with pytest.raises(ValueError, match="seconds"):
        parse_time("soon")


BAD = {
    "empty.json": "",
    "blank.json": "  \n",
    "text.json": "step 1 loss 0.3\n",
    "object.json": '{"traceEvents": [{"ph": "X", "name": "conv", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]}',
    "other_tool.json": '[{"ph": "X", "name": "conv", "ts": 1, "dur": 2, "pid": 1, "tid": 7, "cat": "op"}]',
    "cut_early.json": '[\n{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since',
    "no_events.json": "[]",
    "concatenated.json": '[{"ph": "i", "name": "CYCLE_START", "ts": 1, "s": "g"}]\n[{"ph": "i"}]',
    "numbers.json": "[1, 2, 3]",
}


@pytest.mark.parametrize("name", sorted(BAD) + ["missing.json", "a_directory"])
def test_bad_input_is_one_line_exit_2(name, tmp_path, capsys):
    path = tmp_path / name
    if name in BAD:
        path.write_text(BAD[name])
    elif name == "a_directory":
        path.mkdir()
    assert main(["timeline", "summary", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("hvdkit timeline: error: ") and str(path) in err


# Records with Horovod's keys but a field missing or of the wrong type (the shapes atheris found).
MALFORMED = {
    "no_ts.json": '[{"ph": "B", "name": "ALLREDUCE", "pid": 1}, {"ph": "E", "ts": 5, "pid": 1}]',
    "ts_text.json": '[{"ph": "B", "name": "ALLREDUCE", "ts": "soon", "pid": 1}, {"ph": "E", "ts": 5, "pid": 1}]',
    "pid_list.json": '[{"ph": "B", "name": "ALLREDUCE", "ts": 1, "pid": [1]}, {"ph": "E", "ts": 5, "pid": [1]}]',
}


@pytest.mark.parametrize("action", ["summary", "slice", "plot"])
@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_records_are_one_line_exit_2_in_every_action(name, action, tmp_path, capsys):
    path = tmp_path / name
    path.write_text(MALFORMED[name])
    out = tmp_path / ("out.png" if action == "plot" else "out.json")
    out.write_text("kept")
    argv = ["timeline", action, str(path)] + ([] if action == "summary" else ["--start", "0", "-o", str(out)])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not as Horovod writes it" in err and str(path) in err
    assert out.read_text() == "kept"


def test_outputs_are_never_the_input_and_failures_leave_nothing(trace_file, tmp_path, capsys):
    before = open(trace_file).read()
    assert main(["timeline", "slice", trace_file, "--start", "0", "-o", trace_file]) == 2
    assert main(["timeline", "plot", trace_file, "-o", trace_file]) == 2
    assert open(trace_file).read() == before
    assert main(["timeline", "slice", trace_file, "--start", "2", "--end", "1", "-o", str(tmp_path / "x.json")]) == 2
    assert main(["timeline", "slice", trace_file, "--start", "10", "-o", str(tmp_path / "x.json")]) == 2
    assert main(["timeline", "slice", str(tmp_path / "nope.json"), "-o", str(tmp_path / "x.json")]) == 2
    assert os.listdir(tmp_path) == ["hand.json"]
    # An existing output survives a failed slice or plot.
    (tmp_path / "keep.json").write_text("old")
    assert main(["timeline", "slice", trace_file, "--start", "10", "-o", str(tmp_path / "keep.json")]) == 2
    assert main(["timeline", "plot", trace_file, "--start", "10", "-o", str(tmp_path / "keep.json")]) == 2
    assert (tmp_path / "keep.json").read_text() == "old" and sorted(os.listdir(tmp_path)) == ["hand.json", "keep.json"]
    assert all(len(line) for line in capsys.readouterr().err.strip().splitlines())


def test_slice_of_hand_written_trace_clips_crossing_intervals(trace_file, tmp_path):
    out = tmp_path / "w.json"
    # 1.2 ms to 1.3 ms: inside both tensors' ALLREDUCE and MPI_ALLREDUCE; both get clipped begins and ends.
    assert main(["timeline", "slice", trace_file, "--start", "1200us", "--end", "1300us", "-o", str(out)]) == 0
    events = [r for r in json.load(open(out)) if r["ph"] != "M"]
    assert [(r["ph"], r["pid"], r["ts"]) for r in events] == [
        ("B", 1, 1200), ("B", 1, 1200), ("B", 2, 1200), ("B", 2, 1200),
        ("E", 1, 1300), ("E", 1, 1300), ("E", 2, 1300), ("E", 2, 1300)]
    d = summarize(str(out))
    assert d["activities"]["MPI_ALLREDUCE"]["tensor_us"] == 200 and d["collectives"]["ALLREDUCE"]["count"] == 2


@pytest.mark.torch
@pytest.mark.horovod
def test_window_after_init_says_how_to_fix(tmp_path):
    code = ("import horovod.torch as hvd; hvd.init()\n"
            "from hvdkit.timeline.capture import TimelineWindow, TimelineError\n"
            "w = TimelineWindow(hvd, 't.json', '0:1')\n"
            "try:\n    w.step(0)\nexcept TimelineError as e:\n    print('ERR', e)\n")
    env = {k: v for k, v in os.environ.items() if k != "HOROVOD_TIMELINE"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert "ERR" in out.stdout and "before" in out.stdout and "HOROVOD_TIMELINE=DYNAMIC" in out.stdout, out.stderr
    assert not (tmp_path / "t.json").exists()


def test_trace_error_is_a_value_error():
    assert issubclass(TraceError, ValueError)


@pytest.mark.parametrize("args,words", [
    (["--steps", "5:2"], ["--steps", "need 0 <= A < B"]),
    (["--steps", "x"], ["--steps", "use A:B"]),
    (["--steps", "1:2", "-o", "nowhere/t.json"], ["does not exist"]),
    (["--steps", "1:2", "--"], ["no program to run"]),
    (["--steps", "1:2", "-n", "0", "--", sys.executable, "-c", "pass"], ["number of ranks must be >= 1"]),
])
def test_capture_bad_input_is_one_line_exit_2(args, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if "--" not in args and "-o" not in args:
        args = args + ["--", sys.executable, "-c", "pass"]
    assert main(["timeline", "capture", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("hvdkit timeline: error: ")
    assert all(w in err for w in words), err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("code,words", [
    ("import sys; sys.exit(3)", "the run failed (exit 3); no trace kept"),
    ("pass", "the run wrote no trace: it never started Horovod"),
])
def test_capture_of_a_failed_run_keeps_the_old_trace(code, words, tmp_path, capsys):
    (tmp_path / "t.json").write_text("old")
    argv = ["timeline", "capture", "--steps", "1:2", "-o", str(tmp_path / "t.json"), "--", sys.executable, "-c", code]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"hvdkit timeline: error: {words}"), err
    assert (tmp_path / "t.json").read_text() == "old" and os.listdir(tmp_path) == ["t.json"]
