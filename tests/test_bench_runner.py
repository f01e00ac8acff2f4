"""`make bench`'s runner, as a smoke run: every benchmark runs at tiny size through benchmarks/harness.py
and writes its record. No assertion on speed (targets live in the records); the assertions are on what
a record must hold to be trusted: the machine read at run time, every side measured with consistent
statistics, sides that compute the same thing ending with the same weights, and sentences that carry
the record's own numbers."""
import json
import os
import re
import statistics
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # launches ranks

HARNESS = ("step_torch", "step_tf", "allreduce", "pi", "scaling", "timeline", "resnet")


def _ordered(s):
    return 0 < s["min"] <= s["median"] <= s["max"] and len(s["all"]) >= 1


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("bench")
    out = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick", "--out-dir", str(out_dir)],
                         cwd=ROOT, capture_output=True, text=True, timeout=1500,
                         env=dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    from benchmarks.run import BENCHMARKS
    recs = {}
    for name in BENCHMARKS:
        with open(out_dir / f"{name}.json") as f:
            recs[name] = json.load(f)
        assert recs[name], name
    return recs


@pytest.mark.horovod
def test_harness_stamps_the_machine_read_at_run_time(records):
    for name in HARNESS:
        m = records[name]["machine"]
        assert m["cores"] == os.cpu_count() and m["cpu"] and m["versions"]["numpy"], name
        assert len(m["loadavg_before"]) == len(m["loadavg_after"]) == 3, name
        thp = "/sys/kernel/mm/transparent_hugepage/enabled"
        if os.path.exists(thp):
            assert f"[{m['thp']}]" in open(thp).read(), name
        assert records[name]["measured_at"].endswith("UTC"), name


@pytest.mark.horovod
@pytest.mark.parametrize("name", ["step_torch", "step_tf"])
def test_step_sides_measured_and_computing_the_same(records, name):
    rec = records[name]
    c = rec["comparisons"]["cnn"]
    sides = c["sides"]
    assert set(sides) == {"hvdkit", "horovod"}, sides
    for side, s in sides.items():
        assert s["status"] == "ok" and _ordered(s["step_ms"]) and _ordered(s["cpu_ms_per_step"]), side
        assert s["ranks_agree"], f"{side}: the two ranks ended with different weights"
    if name == "step_torch":
        # Both broadcast before the first step: hvdkit and hand-written Horovod end with the same weights.
        # (TensorFlow's hand-written side broadcasts after the first step, as Horovod's example does, so its
        # first update averages gradients taken at different weights: not the same run.)
        a, b = sides["hvdkit"]["weight_checksum"], sides["horovod"]["weight_checksum"]
        assert abs(a - b) <= 1e-6 * max(1.0, abs(a)), (a, b)
    separate = sides["hvdkit"]["step_ms"]["median"] / sides["horovod"]["step_ms"]["median"]
    assert c["hvdkit_over_handwritten"] == pytest.approx(separate)
    inter = c["interleaved"]
    assert _ordered(inter["hvdkit_step_ms"]) and _ordered(inter["horovod_step_ms"])
    # Every ratio and target recomputed from the two sides' own times (never read back from the field that
    # holds it): a ratio of one side over itself is 1.00 whatever was measured, and must not pass.
    ratios = [a / b for a, b in zip(inter["hvdkit_step_ms"]["all"], inter["horovod_step_ms"]["all"])]
    assert inter["hvdkit_over_handwritten"]["all"] == pytest.approx(ratios)
    for key, ratio in (("cnn_hvdkit_over_handwritten", separate),
                       ("cnn_hvdkit_over_handwritten_interleaved", statistics.median(ratios))):
        t = rec["targets"][key]
        assert t["measured"] == pytest.approx(ratio) and t["met"] == (ratio <= t["target"]), (key, t, ratio)
    if name == "step_torch":
        assert inter["max_weight_difference"] is not None and inter["max_weight_difference"] <= 1e-6
    # Both frameworks under the same Horovod settings; the sentences carry this record's numbers.
    assert records["step_torch"]["horovod_env"] == records["step_tf"]["horovod_env"]
    hv = sides["hvdkit"]["step_ms"]
    # A sentence about noise states the ranges and the ratio, as measured.
    for text in (f"hvdkit {hv['median']:.1f} ms (range {hv['min']:.1f}-{hv['max']:.1f})",
                 f"ratio of medians {c['hvdkit_over_handwritten']:.2f}"):
        assert text in rec["notes"][0], (text, rec["notes"])


def test_step_ratios_come_from_each_sides_own_launches(monkeypatch):
    """No benchmark runs: step_bench's aggregation on made-up launches whose ratios are worked by hand."""
    from benchmarks import step_bench, step_notes
    separate = {"hvdkit": iter([10.0, 12.0, 11.0]), "horovod": iter([8.0, 9.0, 10.0])}  # ms; medians 11, 9
    inside = iter([(10.0, 8.0), (12.0, 10.0), (9.0, 9.0)])  # one launch each; ratios 1.25, 1.2, 1.0

    def fake_run_side(fw, side, model, args, env_set, bpps=1, trace=None):
        if side == "interleaved":
            hv, hw = next(inside)
            return {"interleaved": {"step_s": {"hvdkit": hv / 1e3, "horovod": hw / 1e3}, "steps_per_block": 1,
                                    "max_weight_difference": 0.0}}
        return {"step_s": next(separate[side]) / 1e3, "cpu_s_per_step": 0.001, "untimed_s": 0.1,
                "loadavg_1min_at_start": 0.0, "loss": 1.0, "weight_checksum": 1.0, "ranks_agree": True,
                "command": side, "threads": 1, "info": {}, "tensors": 2, "parameters": 3, "batch_per_rank": 4}
    monkeypatch.setattr(step_bench, "run_side", fake_run_side)
    args = SimpleNamespace(reps=3, steps=5, interleaved_reps=3, blocks=2)
    comparison, errors = step_bench.compare("torch", "cnn", args, {}, ["hvdkit", "horovod"])
    comparison["interleaved"] = step_bench.interleaved("torch", "cnn", args, {})
    assert not errors
    assert comparison["hvdkit_over_handwritten"] == pytest.approx(11 / 9)
    assert comparison["interleaved"]["hvdkit_over_handwritten"]["all"] == pytest.approx([1.25, 1.2, 1.0])
    targets = step_notes.targets({"baseline": "ddp", "comparisons": {"cnn": comparison}})
    assert targets["cnn_hvdkit_over_handwritten"]["measured"] == pytest.approx(11 / 9)
    assert targets["cnn_hvdkit_over_handwritten_interleaved"]["measured"] == pytest.approx(1.2)
    assert not targets["cnn_hvdkit_over_handwritten"]["met"]
    assert not targets["cnn_hvdkit_over_handwritten_interleaved"]["met"]


@pytest.mark.horovod
def test_allreduce_every_side_every_size(records):
    rec = records["allreduce"]
    for side, rows in rec["results"].items():
        assert sorted(rows) == ["4096", "65536"], side
        for size, row in rows.items():
            assert 0 < row["latency_min_us"] <= row["latency_median_us"] <= row["latency_max_us"], (side, size)
            bus = int(size) / row["latency_median_us"] / 1e3 * 2 * (rec["ranks"] - 1) / rec["ranks"]
            assert row["busbw_GBps"] == pytest.approx(bus)
    assert {"hvd_mpi", "hvdkit", "hvd_gloo", "mpi4py", "torch_gloo"} <= set(rec["results"])
    med = rec["results"]["mpi4py"]["4096"]["latency_median_us"]
    assert f"mpi4py {med:.0f} us" in rec["notes"][0], rec["notes"]


@pytest.mark.horovod
def test_pi_timeline_scaling_records(records):
    pi = records["pi"]
    loop = pi["loop_vs_vectorized"]
    # At smoke size the vectorized count's set-up can outweigh the loop: no bound on the ratio here, but the
    # target must report what was measured.
    assert loop["speedup"] == pytest.approx(loop["loop_cpu_s"] / loop["vectorized_cpu_s"])
    target = pi["targets"]["vectorized_over_loop"]
    assert target["measured"] == loop["speedup"] and target["met"] == (loop["speedup"] >= target["target"])
    assert [r["ranks"] for r in pi["scaling"]["runs"]] == [1, 2]
    assert all(len(r["times_s"]) == 3 for r in pi["scaling"]["runs"])
    row = records["timeline"]["rows"][0]
    assert row["records"] > 0 and row["allreduces_counted"] > 0 and row["min_max_seconds"][0] <= row["seconds"]
    sweeps = records["scaling"]["sweeps"]
    assert set(sweeps) == {"torch cores_split", "torch one_thread_each"}
    assert all(0 < s["efficiency"] for runs in sweeps.values() for s in runs)


def _resnet34_training_flops(size, classes=1000):
    """FLOPs per image of a ResNet34 training step, by hand: 2 x multiply-adds of every convolution forward,
    twice that backward (input and weight gradients) except the stem's input gradient, and the classifier's."""
    def out(n, stride):
        return (n - 1) // stride + 1  # padding k // 2 keeps ceil(n / stride)
    convs, n = [(3, 64, 7, out(size, 2))], out(size, 2)
    n, cin = out(n, 2), 64  # max pool
    for i, blocks in enumerate((3, 4, 6, 3)):
        cout = 64 * 2 ** i
        for j in range(blocks):
            stride = 2 if (i > 0 and j == 0) else 1
            n_out = out(n, stride)
            convs += [(cin, cout, 3, n_out), (cout, cout, 3, n_out)]
            if stride != 1 or cin != cout:
                convs.append((cin, cout, 1, n_out))
            n, cin = n_out, cout
    forward = [2 * ci * co * k * k * m * m for ci, co, k, m in convs]
    fc = 2 * 512 * classes
    return 3 * sum(forward) - forward[0] + 3 * fc


@pytest.mark.horovod
def test_resnet_record_against_the_machine(records):
    rec = records["resnet"]
    size = str(rec["config"]["sizes"][0])
    assert rec["flops_per_image"][size] == _resnet34_training_flops(int(size))
    m2 = rec["matmul"]["2"]
    assert set(m2["gflops"]) == {"torch", "tensorflow"} and all(_ordered(s) for s in m2["gflops"].values())
    assert m2["machine_gflops"] == max(s["median"] for s in m2["gflops"].values())
    for fw in ("torch", "tensorflow"):
        run = rec["runs"][fw][size]
        assert _ordered(run["images_per_s"])
        rate = run["images_per_s"]["median"]
        # Each launch against the machine's rate around it (each library's mean of the readings before and after
        # it, the faster library's), the median launch.
        launches = run["launches"]
        assert sorted(x["images_per_s"] for x in launches) == sorted(run["images_per_s"]["all"])
        for x in launches:
            means = {lib: sum(pair) / 2 for lib, pair in x["gflops_before_after"].items()}
            assert x["gflops_by_library"] == pytest.approx(means) and x["machine_gflops"] == max(means.values())
        fractions = [x["images_per_s"] * _resnet34_training_flops(int(size)) / 1e9 / x["machine_gflops"]
                     for x in launches]
        assert run["fraction_of_matmul"] == pytest.approx(statistics.median(fractions))
        # Records made before the torch script lost --framework name the TensorFlow one with that option.
        assert re.search(r"examples/resnet34/train_hvd(_torch\.py|\.py --framework torch)" if fw == "torch"
                         else r"examples/resnet34/train_hvd\.py (?!--framework torch)", run["command"]), run["command"]
        assert f"{rate:.1f} img/s" in " ".join(rec["notes"])
    befores = [{lib: pair[0] for lib, pair in x["gflops_before_after"].items()}
               for fw in ("torch", "tensorflow") for x in rec["runs"][fw][size]["launches"]]
    assert {lib: s["median"] for lib, s in m2["gflops"].items()} in befores  # the first run's: the record's matmul


@pytest.mark.horovod
def test_conv_ceiling_from_its_own_layers(records):
    rec = records["conv"]
    rate = rec["matmul"][str(rec["threads"])]["machine_gflops"]
    assert set(rec["frameworks"]) == {"torch", "tensorflow"}
    for fw, entry in rec["frameworks"].items():
        for size, s in entry["sizes"].items():
            rows = entry["layers"][size]
            assert sum(r["count"] for r in rows) == 36  # ResNet34: the stem, 32 in the blocks, 3 downsamples
            flops = sum(r["count"] * r["flops"] for r in rows)
            # The batch's FLOPs of every layer but the classifier, against the formula written by hand.
            assert flops == rec["batch"] * (_resnet34_training_flops(int(size)) - 3 * 2 * 512 * 1000)
            fastest = sum(r["count"] * min(r["seconds"].values()) for r in rows)
            frac = s["fraction_of_matmul"]
            assert frac["fastest_per_layer"] == pytest.approx(flops / fastest / 1e9 / rate)
            for way in ("kernel", "hvdkit_choice", "fastest_without_xla"):
                assert frac["fastest_per_layer"] >= frac.get(way, 0)
            if fw == "tensorflow":
                library = sum(r["count"] * min(r["seconds"]["kernel"], r["seconds"]["matmul"]) for r in rows)
                assert frac["fastest_without_xla"] == pytest.approx(flops / library / 1e9 / rate)
            assert f"{fw}, {size} px" in " ".join(rec["notes"])
            assert f"{frac['fastest_per_layer']:.2f} of the matmul rate" in " ".join(rec["notes"])
    # The two models are the same network: the same convolutions, as often (the order the two models list
    # them in differs: Keras lists a block's shortcut convolution before its second 3x3).
    for size in rec["frameworks"]["torch"]["layers"]:
        assert (sorted((r["layer"], r["count"]) for r in rec["frameworks"]["torch"]["layers"][size])
                == sorted((r["layer"], r["count"]) for r in rec["frameworks"]["tensorflow"]["layers"][size]))


def test_check_smoke_scores_a_corpus_subset_and_says_so(records):
    """The smoke run scores 2 corpus scripts per directory (tf, torch), flat and in projects; the record says so,
    so its figures are never read as the corpus's (tests/test_check_corpus.py scores all of it)."""
    rec = records["check"]
    for key in ("static_corpus", "static_corpus_projects"):
        assert rec[key]["all"]["scripts"] == 4 and rec[key]["tf"]["scripts"] == rec[key]["torch"]["scripts"] == 2
    assert "--corpus-limit 2" in rec["command"] and "only the first 2 corpus scripts" in rec["notes"][-1]


def test_page_renders_every_record(records):
    from benchmarks.run import BENCHMARKS, page
    from benchmarks.harness import machine
    runs = [{"name": n, "command": BENCHMARKS[n][0], "status": "ok", "result": records[n]} for n in BENCHMARKS]
    text = page(runs, machine())
    for n in BENCHMARKS:
        link = f"| [{n}.json](../benchmarks/results/{n}.json)"
        row = next(line for line in text.splitlines() if line.startswith(link))
        targets = records[n].get("targets") or {}
        met = sum(1 for t in targets.values() if isinstance(t, dict) and t.get("met"))
        assert (f"| {met} of {len(targets)} |" if targets else "| none set |") in row, row
    assert len(text.splitlines()) <= 40  # one screen
    assert records["pi"]["targets"]["vectorized_over_loop"]["target"] == 40.0


def test_page_lists_missed_targets_and_records_made_by_hand(tmp_path):
    """No benchmark runs: page() on made-up records, others() on a made-up results folder."""
    from benchmarks.run import BENCHMARKS, others, page
    result = {"command": "python -m benchmarks.x " + "--flag " * 40, "measured_at": "2026-01-02 03:04 UTC",
              "targets": {"fast": {"target": 1, "measured": 2, "met": True},
                          "faster": {"target": 1, "measured": 0.5, "met": False}}}
    text = page([{"name": "x", "command": "benchmarks.x " + "--flag " * 40, "status": "ok", "result": result},
                 {"name": "y", "command": "benchmarks.y", "status": "not run yet"}], {"versions": {}})
    assert "| [x.json](../benchmarks/results/x.json) | 2026-01-02 03:04 UTC | 1 of 2 | `python -m benchmarks.x --flag" \
        in text
    assert "- x: faster" in text and "- x: fast," not in text
    assert "| y | not run yet |" in text
    made_by_hand = dict(result, command="python -m conformance.upstream --no-examples")
    for name in (*BENCHMARKS, "upstream_unpatched"):
        with open(tmp_path / f"{name}.json", "w") as f:
            json.dump(made_by_hand if name == "upstream_unpatched" else {}, f)
    extra = others(str(tmp_path))
    assert [r["name"] for r in extra] == ["upstream_unpatched"]
    assert extra[0]["command"] == "conformance.upstream --no-examples"
    assert "(by hand, not by `make bench`)" in page(extra, {"versions": {}})
