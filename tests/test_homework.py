"""The homework: the Horovod scripts differ from the sequential ones only in marked lines; short real
runs at 1 and 2 ranks learn, write metrics and resume; the plots are valid one-page PDFs."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_ranks
from conversion import added, problems
from hvdkit.data import datasets

sys.path.insert(0, os.path.join(ROOT, "homework"))  # the homework's modules, as its scripts import them
import plot
import study

HOMEWORK = os.path.join(ROOT, "homework")

have_fashion = pytest.mark.skipif(not datasets.available()["fashion-mnist"],
                                  reason="Fashion-MNIST not installed (make setup installs dataset-fashion-mnist)")
# Small and fast, yet enough steps to learn: 640 images, 20 (1 rank) or 10 (2 ranks) steps per epoch.
TINY = ["--dataset", "fashion-mnist", "--epochs", "2", "--subset", "640", "--batch-size", "32"]
@pytest.mark.parametrize("sequential,converted", [
    ("tensorflow2_mnist.py", "tensorflow2_mnist_hvd.py"), ("pytorch_mnist.py", "pytorch_mnist_hvd.py")])
def test_conversion_changes_only_marked_lines(sequential, converted):
    """Every line the Horovod version adds carries a `Horovod:` mark; the only unmarked change allowed is
    dropping an import the converted script no longer needs (tests/test_conversion.py holds the limit)."""
    seq, hvd = os.path.join(HOMEWORK, sequential), os.path.join(HOMEWORK, converted)
    bad = problems(seq, hvd)
    assert not bad, f"{converted}:\n" + "\n\n".join(bad)
    changed = added(seq, hvd)
    with open(os.path.join(HOMEWORK, "README.md")) as f:  # and homework/README.md gives the count
        stated = re.search(r"For TensorFlow it is (\d+) lines \(PyTorch (\d+)\)", f.read())
    assert stated and int(stated.group(1 if converted.startswith("tensorflow") else 2)) == changed, \
        f"{converted}: {changed} changed lines; homework/README.md says otherwise"


def _study(tmp_path, framework, ranks, *script_args, timeout=300):
    argv = [sys.executable, os.path.join(HOMEWORK, "study.py"), "scaling", "--framework", framework,
            "--ranks", *map(str, ranks), "--out", str(tmp_path), "--", *script_args]
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=str(tmp_path), env=env)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _check_runs(tmp_path, framework, ranks, warmup_epochs=0):
    runs = plot.read_runs(tmp_path / framework / "scaling")
    assert sorted(runs) == sorted(ranks)
    for n, run in runs.items():
        assert run["framework"] == framework and run["ranks"] == n and run["global_batch_size"] == 32 * n
        assert run["warmup_epochs"] == warmup_epochs
        assert [e["epoch"] for e in run["epochs"]] == [1, 2]
        for e in run["epochs"]:
            assert e["time"] > 0 and 0 <= e["train_accuracy"] <= 1 and e["val_loss"] > 0
        # Chance is 0.10 on Fashion-MNIST's ten balanced classes.
        assert run["epochs"][-1]["val_accuracy"] > 0.5, (n, run["epochs"])
        assert run["epochs"][-1]["train_loss"] < run["epochs"][0]["train_loss"]
    return runs


def _pdf_pages(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF"), path
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", data)), len(data)


def _check_plots(metrics_dir, out, ranks):
    assert plot.main([str(metrics_dir), "--out", str(out)]) == 0
    for name in [f"accuracy_{n}" for n in ranks] + ["accuracy_all", "scaling"]:
        pages, size = _pdf_pages(out / f"{name}.pdf")
        assert pages == 1 and size > 5000, (name, pages, size)
        with open(out / f"{name}.png", "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


@have_fashion
@pytest.mark.slow
@pytest.mark.horovod
@pytest.mark.torch
def test_torch_homework_1_and_2_ranks_learn_and_plot(tmp_path):
    proc = _study(tmp_path, "torch", [1, 2], *TINY)
    # Rank 0 alone prints: one line per epoch per run, not one per rank.
    assert len([ln for ln in proc.stdout.splitlines() if ln.startswith("epoch   2")]) == 2, proc.stdout
    _check_runs(tmp_path, "torch", [1, 2])
    _check_plots(tmp_path / "torch" / "scaling", tmp_path / "plots", [1, 2])


@have_fashion
@pytest.mark.slow
@pytest.mark.horovod
@pytest.mark.tensorflow
def test_tensorflow_homework_1_and_2_ranks_learn_with_warmup_and_plot(tmp_path):
    _study(tmp_path, "tensorflow", [1, 2], *TINY, "--warmup-epochs", "1")
    _check_runs(tmp_path, "tensorflow", [1, 2], warmup_epochs=1.0)
    _check_plots(tmp_path / "tensorflow" / "scaling", tmp_path / "plots", [1, 2])
    # The two frameworks' studies keep apart: nothing of TensorFlow's is taken for a torch run.
    assert not (tmp_path / "torch").exists() and not (tmp_path / "scaling").exists()


@have_fashion
@pytest.mark.slow
@pytest.mark.horovod
@pytest.mark.torch
def test_torch_homework_resumes_from_rank_0_checkpoint(tmp_path):
    args = ["--dataset", "fashion-mnist", "--subset", "256", "--batch-size", "64", "--warmup-epochs", "1",
            "--checkpoint-dir", str(tmp_path / "ckpt"), "--metrics", str(tmp_path / "m.json")]
    script = os.path.join(HOMEWORK, "pytorch_mnist_hvd.py")
    run_ranks(2, script, [*args, "--epochs", "1"], cwd=str(tmp_path)).check()
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["epoch-0000.ckpt", "epoch-0000.ckpt.sha256"]
    second = run_ranks(2, script, [*args, "--epochs", "2"], cwd=str(tmp_path)).check()
    trained = second.lines("epoch ")  # rank 0 prints one line per epoch it trains
    assert len(trained) == 1 and trained[0].startswith("2 "), second.stdout
    with open(tmp_path / "m.json") as f:
        run = json.load(f)
    assert [e["epoch"] for e in run["epochs"]] == [1, 2] and run["warmup_epochs"] == 1.0
    assert "epoch-0001.ckpt" in os.listdir(tmp_path / "ckpt")


@have_fashion
@pytest.mark.parametrize("script,framework", [
    pytest.param("tensorflow2_mnist.py", "tensorflow", marks=pytest.mark.tensorflow),
    pytest.param("pytorch_mnist.py", "torch", marks=pytest.mark.torch)])
@pytest.mark.slow
def test_sequential_baseline_learns_and_writes_metrics(tmp_path, script, framework):
    metrics = tmp_path / "seq.json"
    proc = subprocess.run([sys.executable, os.path.join(HOMEWORK, script), *TINY, "--metrics", str(metrics)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path),
                          env=dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(metrics) as f:
        run = json.load(f)
    assert run["framework"] == framework and run["ranks"] == 1 and run["global_batch_size"] == 32
    assert [e["epoch"] for e in run["epochs"]] == [1, 2]
    for e in run["epochs"]:
        assert e["time"] > 0 and e["val_loss"] > 0 and {"train_loss", "train_accuracy", "val_accuracy"} <= set(e)
    assert run["epochs"][-1]["val_accuracy"] > 0.5 and run["epochs"][-1]["train_loss"] < run["epochs"][0]["train_loss"]


def test_missing_mnist_is_one_line_pointing_to_fashion_mnist(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "HVDKIT_DATA"}
    env.update(HOME=str(tmp_path), KERAS_HOME=str(tmp_path / "keras"), PYTHONPATH=ROOT)
    code = ("import sys; sys.argv = ['pytorch_mnist.py', '--dataset', 'mnist']; import mnist_common; "
            "mnist_common.load(mnist_common.parser('x').parse_args())")
    proc = subprocess.run([sys.executable, "-c", code], cwd=HOMEWORK, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pytorch_mnist.py: error: MNIST not found (searched: ")
    assert f"Keras cache {tmp_path}/keras/datasets" in lines[0]
    if datasets.available()["fashion-mnist"]:
        assert lines[0].endswith("--dataset fashion-mnist")


def _fake_run(n, epochs=3, time_per_epoch=10.0):
    return {"framework": "torch", "dataset": "fashion-mnist", "ranks": n, "batch_size": 256, "lr": 0.001,
            "warmup_epochs": 0, "epochs": [{"epoch": e + 1, "train_accuracy": 0.5 + 0.1 * e,
                                            "val_accuracy": 0.6 + 0.1 * e,
                                            "time": (30.0 if e == 0 else time_per_epoch / n)} for e in range(epochs)]}


def test_plots_from_metrics_files_and_epoch_time_skips_the_first_epoch(tmp_path):
    for n in (1, 2, 4, 8):
        with open(tmp_path / f"metrics_{n}.json", "w") as f:
            json.dump(_fake_run(n), f)
    (tmp_path / "metrics_notes.json").write_text("{}")  # not metrics_N: ignored
    runs = plot.read_runs(tmp_path)
    assert list(runs) == [1, 2, 4, 8]
    assert [plot.epoch_time(r) for r in runs.values()] == [10.0, 5.0, 2.5, 1.25]
    _check_plots(tmp_path, tmp_path / "out", [1, 2, 4, 8])
    with open(tmp_path / "summary.json") as f:  # the record homework/README.md links to, beside the metrics
        summary = json.load(f)
    assert summary["train_seconds_per_epoch"] == {"1": 10.0, "2": 5.0, "4": 2.5, "8": 1.25}
    assert summary["speedup"] == {"1": 1.0, "2": 2.0, "4": 4.0, "8": 8.0}


def test_plot_without_metrics_says_what_to_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        plot.main([str(tmp_path)])
    assert exc.value.code == 2
    assert "run `python homework/study.py scaling` first" in capsys.readouterr().err


def test_warmup_table_means_and_spread():
    rows = [{"seed": s, "warmup_epochs": w, "val_accuracy": a}
            for s, w, a in [(0, 0.0, 0.80), (1, 0.0, 0.70), (0, 2.0, 0.85), (1, 2.0, 0.87)]]
    table = study.warmup_table(rows, 8).splitlines()
    assert table[0] == "| 8 ranks: final val accuracy | warmup 0 epochs | warmup 2 epochs |"
    assert table[2] == "| seed 0 | 0.8000 | 0.8500 |"
    assert table[-1] == "| mean ± stdev | **0.7500** ± 0.0707 | **0.8600** ± 0.0141 |"


def test_scaling_summary_records_the_load_of_the_epochs_that_have_it():
    runs = {1: _fake_run(1), 2: _fake_run(2)}
    for e, load in zip(runs[2]["epochs"], (3.0, 5.0, 1.0)):
        e["load_avg_1min"] = load
    figures = plot.summary(runs)
    assert figures["load_avg_1min"] == {"2": {"min": 1.0, "mean": 3.0, "max": 5.0, "epochs": 3}}


def test_warmup_summary_is_rebuilt_from_the_metrics_files(tmp_path):
    """The record homework/README.md's warmup table links to: final accuracies, and mean and sample stdev."""
    for seed, w, acc in [(0, 0.0, 0.80), (1, 0.0, 0.70), (0, 2.0, 0.85), (1, 2.0, 0.87)]:
        run = _fake_run(8, epochs=2)
        run["epochs"][-1].update(val_accuracy=acc, val_loss=0.5)
        with open(study.warmup_metrics(str(tmp_path), 8, w, seed), "w") as f:
            json.dump(run, f)
    table = study.write_warmup_summary(str(tmp_path), 8, [0, 1], 2.0, ["--epochs", "2"])
    with open(tmp_path / "summary.json") as f:
        record = json.load(f)
    assert [(r["seed"], r["warmup_epochs"], r["val_accuracy"]) for r in record["runs"]] == [
        (0, 0.0, 0.80), (0, 2.0, 0.85), (1, 0.0, 0.70), (1, 2.0, 0.87)]
    assert [s["warmup_epochs"] for s in record["settings"]] == [0.0, 2.0]
    assert [round(s["val_accuracy_mean"], 6) for s in record["settings"]] == [0.75, 0.86]
    # 0.1/sqrt(2), 0.02/sqrt(2)
    assert [round(s["val_accuracy_stdev"], 6) for s in record["settings"]] == [0.070711, 0.014142]
    assert (tmp_path / "summary.md").read_text() == table + "\n"
