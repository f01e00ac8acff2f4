"""`hvdkit scale` and the run record, with a probe program whose rates are known in closed form.

Rank r of the probe reports 10 * (r + 1) items/s and allreduces the sum with MPI, so a sweep's totals,
speed-ups and efficiencies follow from the rank counts alone: total(n) = 5 n (n + 1), speed-up over one
rank 5 n (n + 1) / 10, efficiency (n + 1) / 2. Its per-rank batch is its --batch-size if given (hvdkit scale
--strong rewrites it), else HVDKIT_GLOBAL_BATCH_SIZE divided by the ranks unless told to ignore it.
"""
import csv
import json
import math
import os
import subprocess
import sys
import time

import pytest

from conftest import BIN, ROOT, hvdkit_cli
from hvdkit.scale import record, scaling
from hvdkit.common.context import usable_cores

PROBE = """
import os, sys
from mpi4py import MPI
from hvdkit.scale import record

comm = MPI.COMM_WORLD
rate = 10.0 * (comm.rank + 1)
total = comm.allreduce(rate, op=MPI.SUM)
rates = comm.gather(rate)
glob = None if "--ignore-global" in sys.argv else record.global_batch_size()
batch = glob // comm.size if glob else 4
if "--batch-size" in sys.argv:
    batch = int(sys.argv[sys.argv.index("--batch-size") + 1])
extra = {"oversubscribed": comm.size > 1} if "--say-oversubscribed" in sys.argv else {}
extra["cores_allowed"] = len(os.sched_getaffinity(0))
if "--say-threads" in sys.argv:  # what hvdkit scale gave each rank, as train_hvd.py records it
    extra.update(threads_per_rank=int(os.environ["OMP_NUM_THREADS"]), local_size=comm.size, hosts=1)
if comm.rank == 0 and "--no-record" not in sys.argv and not ("--no-record-at-2" in sys.argv and comm.size == 2):
    record.write(record.default_path(), record.build(comm.size, rates, total, unit="items", batch_size=batch,
                                                     global_batch_size=batch * comm.size, **extra))
"""


def total(n):
    return 5.0 * n * (n + 1)


@pytest.fixture
def probe(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    return str(path)


def hvdkit(*args, cwd, path=None):
    env = dict(os.environ, PATH=path if path is not None else BIN + os.pathsep + os.environ.get("PATH", ""))
    return hvdkit_cli("scale", *args, cwd=cwd, env=env, timeout=240)


def one_line_error(proc, code, *words):
    assert proc.returncode == code, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hvdkit scale: error:"), proc.stderr
    for w in words:
        assert w in lines[0], lines[0]


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_weak_sweep_writes_table_csv_and_plots(tmp_path, probe):
    proc = hvdkit("-n", "2,1", "--out", "out", "--", "python", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tmp_path / "out"
    rows = read_csv(out / "scale.csv")
    assert [int(r["ranks"]) for r in rows] == [1, 2]
    for r in rows:
        n = int(r["ranks"])
        assert float(r["total_rate"]) == pytest.approx(total(n))
        assert float(r["speedup"]) == pytest.approx(total(n) / total(1))
        assert float(r["efficiency"]) == pytest.approx((n + 1) / 2)
        assert (int(r["slowest_rank"]), float(r["slowest_rate"])) == (0, 10.0)
        assert (int(r["fastest_rank"]), float(r["fastest_rate"])) == (n - 1, 10.0 * n)
        assert r["batch_size"] == "4" and r["oversubscribed"] == "False"
        assert record.read(out / r["record"])["ranks"] == n  # paths relative to --out
    text = (out / "scale.txt").read_text()
    assert "30.00" in text and "3.00x" in text and "150%" in text and "oversubscribed" not in text
    assert " 1: 20.00 |" in text  # fastest rank of the 2-rank run
    assert (out / "scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "scale.pdf").read_bytes()[:5] == b"%PDF-"
    assert json.loads((out / "scale.json").read_text())["mode"] == "weak"
    assert sorted(os.listdir(out / "logs")) == ["ranks-1.log", "ranks-2.log"]
    assert not [n for n in os.listdir(out) if n.startswith(".sweep-")]  # the staging area is gone


@pytest.mark.slow
def test_each_rank_may_run_on_as_many_cores_as_it_has_threads(tmp_path, probe):
    """mpirun alone would bind a lone rank to one core while hvdkit gives it a thread per core."""
    proc = hvdkit("-n", "1", "--out", "out", "--", "python", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rec = record.read(tmp_path / "out" / read_csv(tmp_path / "out" / "scale.csv")[0]["record"])
    assert rec["cores_allowed"] >= usable_cores()


@pytest.mark.horovod
@pytest.mark.slow
def test_sweep_through_horovodrun(tmp_path, probe):
    proc = hvdkit("-n", "1,2", "--launcher", "horovodrun", "--out", "out", "--", "python", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_csv(tmp_path / "out" / "scale.csv")
    assert [(int(r["ranks"]), float(r["total_rate"])) for r in rows] == [(1, total(1)), (2, total(2))]
    assert (tmp_path / "out" / "scale.txt").read_text().startswith("weak scaling, horovodrun, ")


@pytest.mark.parametrize("job", ["slurm_scale.sh", "pbs_polaris_scale.sh"])
def test_job_templates_are_valid_bash(job):
    proc = subprocess.run(["bash", "-n", os.path.join(ROOT, "examples", "jobs", job)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_ranks_beyond_the_cores_are_marked_oversubscribed(tmp_path, probe):
    cores = usable_cores()
    proc = hvdkit("-n", f"1,{cores + 1}", "--out", "o", "--", "python", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_csv(tmp_path / "o" / "scale.csv")
    assert [r["oversubscribed"] for r in rows] == ["False", "True"]
    eff = 100 * (cores + 2) / 2
    assert f"({eff:.0f}%)" in proc.stdout and "oversubscribed: more ranks than cores" in proc.stdout
    # A record's own verdict wins (here: the probe calls every multi-rank run oversubscribed).
    proc = hvdkit("-n", "1,2", "--out", "o2", "--", "python", probe, "--say-oversubscribed", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [r["oversubscribed"] for r in read_csv(tmp_path / "o2" / "scale.csv")] == ["False", "True"]


def _rec(ranks, total, threads, cpus, device=None, hosts=1):
    rates = [total / ranks] * ranks
    extra = {"device": device} if device else {}
    return record.build(ranks, rates, total, unit="items", threads_per_rank=threads, local_size=ranks // hosts,
                        hosts=hosts, cpu_count=cpus, **extra)


def test_the_ideal_is_the_compute_the_runs_had():
    """Values worked by hand: shared cores (the demo's 1 x 2 then 2 x 1 threads on 2 cores), one core per
    rank, a GPU per rank, and two nodes."""
    shared = scaling.rows([_rec(1, 100.0, 2, 2), _rec(2, 108.0, 1, 2)])
    assert [(r["ideal_basis"], r["cores_used"], r["ideal_speedup"]) for r in shared] == [("cores", 2, 1.0),
                                                                                         ("cores", 2, 1.0)]
    assert shared[1]["efficiency"] == pytest.approx(1.08)
    text = scaling.table(shared)
    cells = [c.strip() for c in text.splitlines()[3].split("|")]
    assert cells[5:8] == ["1.08x", "1.00x", "108%"] and "ideal: speed-up = cores used / 2" in text, text
    # Beyond the cores, one thread each: 3 ranks on 2 cores had 2 cores' worth, not 3.
    capped = scaling.rows([_rec(1, 10.0, 1, 2), _rec(2, 19.0, 1, 2), _rec(3, 21.0, 1, 2)])
    assert [r["ideal_speedup"] for r in capped] == [1.0, 2.0, 2.0]
    assert [round(r["efficiency"], 6) for r in capped] == [1.0, 0.95, 1.05]

    own = scaling.rows([_rec(1, 10.0, 1, 8), _rec(2, 19.0, 1, 8), _rec(4, 36.0, 1, 8)])
    assert [(r["ideal_basis"], r["ideal_speedup"]) for r in own] == [("ranks", 1.0), ("ranks", 2.0), ("ranks", 4.0)]
    assert [round(r["efficiency"], 6) for r in own] == [1.0, 0.95, 0.9]
    assert "ideal: speed-up = ranks / 1 (linear in ranks" in scaling.table(own)
    gpus = scaling.rows([_rec(1, 100.0, 2, 2, "cuda:0"), _rec(2, 108.0, 1, 2, "/GPU:0")])
    assert [(r["ideal_basis"], r["ideal_speedup"]) for r in gpus] == [("ranks", 1.0), ("ranks", 2.0)]
    assert gpus[1]["efficiency"] == pytest.approx(0.54)
    # Two nodes of 4 cores, 4 threads per rank at 1 rank per node, 2 per node at 2: 8 cores each time.
    nodes = scaling.rows([_rec(2, 50.0, 4, 4, hosts=2), _rec(4, 60.0, 2, 4, hosts=2)])
    assert [(r["cores_used"], r["ideal_speedup"]) for r in nodes] == [(8, 1.0), (8, 1.0)]
    assert nodes[1]["efficiency"] == pytest.approx(1.2)
    # A record that does not say its threads: the rank-count ideal, as before.
    unknown = scaling.rows([record.build(1, [10.0], 10.0), record.build(2, [9.0, 9.0], 18.0)])
    assert [r["ideal_basis"] for r in unknown] == ["ranks", "ranks"] and unknown[1]["efficiency"] == pytest.approx(0.9)


@pytest.mark.slow
def test_a_sweep_on_shared_cores_is_measured_against_them(tmp_path, probe):
    proc = hvdkit("-n", "1,2", "--out", "out", "--", "python", probe, "--say-threads", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_csv(tmp_path / "out" / "scale.csv")
    cores = usable_cores()
    used = [min(int(r["ranks"]) * int(r["threads_per_rank"]), cores) for r in rows]
    basis = "cores" if used[1] != 2 * used[0] else "ranks"  # 2 ranks with a core each: linear in ranks
    for r, u in zip(rows, used):
        assert (r["ideal_basis"], int(r["cores_used"])) == (basis, u)
        assert float(r["efficiency"]) == pytest.approx((total(int(r["ranks"])) / total(1)) / (u / used[0]))
    assert "ideal: speed-up = " + ("cores used" if basis == "cores" else "ranks") in proc.stdout


@pytest.mark.slow
def test_strong_sweep_keeps_the_global_batch(tmp_path, probe):
    proc = hvdkit("-n", "1,2", "--strong", "--out", "s", "--", "python", probe, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_csv(tmp_path / "s" / "scale.csv")
    assert [(r["batch_size"], r["global_batch_size"]) for r in rows] == [("4", "4"), ("2", "4")]
    proc = hvdkit("-n", "1,2", "--strong", "--global-batch-size", 8, "--out", "s8", "--", "python", probe,
                  cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [r["batch_size"] for r in read_csv(tmp_path / "s8" / "scale.csv")] == ["8", "4"]
    assert json.loads((tmp_path / "s8" / "scale.json").read_text())["mode"] == "strong"


@pytest.mark.slow
def test_strong_sweep_sets_the_programs_own_batch_option(tmp_path, probe):
    """--batch-size 6 at 1 rank, then 3 at 2 ranks (its own option, rewritten); 12 at 2 and 4 with a global 24."""
    proc = hvdkit("-n", "1,2", "--strong", "--out", "s", "--", "python", probe, "--batch-size", 6, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = read_csv(tmp_path / "s" / "scale.csv")
    assert [(r["batch_size"], r["global_batch_size"]) for r in rows] == [("6", "6"), ("3", "6")]
    assert "--batch-size 3" in (tmp_path / "s" / "logs" / "ranks-2.log").read_text().splitlines()[0]
    proc = hvdkit("-n", "2", "--strong", "--global-batch-size", 24, "--batch-flag=--bs", "--out", "s2", "--",
                  "python", probe, "--bs=5", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "--bs=12" in (tmp_path / "s2" / "logs" / "ranks-2.log").read_text().splitlines()[0]
    one_line_error(hvdkit("-n", "1,2", "--strong", "--out", "s3", "--", "python", probe, "--batch-size", "x",
                          cwd=tmp_path), 2, "--batch-size 'x'")
    one_line_error(hvdkit("-n", "1,4", "--strong", "--out", "s3", "--", "python", probe, "--batch-size", "6",
                          cwd=tmp_path), 2, "global batch 6 does not split evenly over 4 ranks")


@pytest.mark.slow
def test_a_program_that_ignores_the_global_batch_is_an_error(tmp_path, probe):
    proc = hvdkit("-n", "1,2", "--strong", "--out", "s", "--", "python", probe, "--ignore-global", cwd=tmp_path)
    one_line_error(proc, 2, "HVDKIT_GLOBAL_BATCH_SIZE", "global batch 8, not 4")


@pytest.mark.slow
def test_a_sweep_where_one_run_writes_no_record_leaves_earlier_results_alone(tmp_path, probe):
    out = tmp_path / "out"
    out.mkdir()
    (out / "scale.csv").write_text("earlier results\n")
    proc = hvdkit("-n", "1,2", "--out", "out", "--", "python", probe, "--no-record-at-2", cwd=tmp_path)
    one_line_error(proc, 2, "the 2-rank run wrote no run record, the 1-rank run did")
    assert (out / "scale.csv").read_text() == "earlier results\n"
    assert not (out / "records").exists()


@pytest.mark.slow
def test_a_failing_run_is_one_line_with_its_log(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "scale.csv").write_text("earlier results\n")
    (tmp_path / "boom.py").write_text("import sys\nsys.exit('boom: no GPU here')\n")
    proc = hvdkit("-n", "1", "--out", "out", "--", "python", "boom.py", cwd=tmp_path)
    one_line_error(proc, 1, "1-rank run failed", "boom: no GPU here", "log:")
    assert (out / "scale.csv").read_text() == "earlier results\n"


@pytest.mark.parametrize("args,words", [
    (["-n", "1,x"], ["bad -n"]),
    (["-n", "0,2"], ["bad -n"]),
    (["-n", "2,2"], ["bad -n"]),
    (["-n", ""], ["bad -n"]),
    (["--launcher", "pbsdsh"], ["unknown launcher 'pbsdsh'", "mpirun, mpiexec, horovodrun, srun"]),
    (["--strong", "--global-batch-size", "6", "-n", "1,4"], ["does not split evenly over 4 ranks"]),
    (["--global-batch-size", "8"], ["--strong"]),
])
def test_bad_input_is_one_line_and_exit_2_before_any_run(tmp_path, probe, args, words):
    proc = hvdkit(*args, "--out", "out", "--", "python", probe, cwd=tmp_path)
    one_line_error(proc, 2, *words)
    assert not (tmp_path / "out").exists()


def test_missing_program_and_missing_launcher(tmp_path, probe):
    one_line_error(hvdkit("-n", "1", cwd=tmp_path), 2, "no program to run")
    one_line_error(hvdkit("-n", "1", "--", "python", "nope.py", cwd=tmp_path), 2, "nope.py: no such file")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    proc = hvdkit("-n", "1", "--out", "out", "--", "python", probe, cwd=tmp_path, path=str(empty))
    one_line_error(proc, 2, "mpirun not found on PATH")
    assert not (tmp_path / "out").exists()


def test_record_build_read_and_validation(tmp_path):
    rec = record.build(3, [5.0, 1.0, 3.0], 9.0, unit="images", batch_size=2)
    assert rec["slowest_rank"] == {"rank": 1, "rate": 1.0} and rec["fastest_rank"] == {"rank": 0, "rate": 5.0}
    assert rec["rate_mean"] == 3.0 and rec["rate_std"] == pytest.approx(math.sqrt(8 / 3))
    path = record.write(tmp_path / "sub" / "r.json", rec)
    assert record.read(path) == rec
    assert os.listdir(tmp_path / "sub") == ["r.json"]  # no temporary file left behind
    bad = [
        ({**rec, "total_rate": 12.0}, "not the sum"),
        ({**rec, "ranks": 2}, "one rate per rank"),
        ({**rec, "rank_rates": [5.0, 0.0, 4.0], "total_rate": 9.0}, "finite numbers > 0"),
        ({**rec, "format": "other"}, "not an hvdkit run record"),
        ({**rec, "version": 2}, "version"),
        ({k: v for k, v in rec.items() if k != "unit"}, "lacks 'unit'"),
        ({**rec, "step_times": [[1.0]]}, "step_times"),
    ]
    for broken, message in bad:
        with pytest.raises(record.RecordError, match=message):
            record.validate(broken)
    with pytest.raises(record.RecordError, match="not the sum"):
        record.build(2, [1.0, 2.0], 4.0)
    (tmp_path / "torn.json").write_text('{"format": "hvdkit-run')
    with pytest.raises(record.RecordError, match="cannot read"):
        record.read(tmp_path / "torn.json")
    with pytest.raises(record.RecordError, match="no run record"):
        record.read(tmp_path / "missing.json")


@pytest.mark.slow
def test_other_work_running_before_a_run_is_noted(tmp_path, probe):
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.5)  # past its start-up reads, always runnable from here on
    try:
        proc = hvdkit("-n", "1", "--out", "o", "--", "python", probe, cwd=tmp_path)
    finally:
        spinner.kill()
        spinner.wait()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = read_csv(tmp_path / "o" / "scale.csv")
    assert float(row["busy_before"]) >= 1  # the spinner, at least, was running
    if usable_cores() <= 2:
        assert "note: other processes were running when the 1-rank run(s) started" in proc.stdout
