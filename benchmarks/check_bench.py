"""`hvdkit check`: recall and precision per step on real scripts (the check corpus), on the mutant suite and
on the class cases; the report on Horovod's own examples; the static pass's speed on a 300-line script
(target < 1 s) and on a 20-module project (target < 3 s).

    python -m benchmarks.check_bench                  # static + --run on the mutants and the upstream examples
    python -m benchmarks.check_bench --quick          # static only (seconds)

Check corpus: 66 scripts of other authors with hand labels, read from ../shared/check-corpus (beside the
repository, as on CI; never copied). Scored as its README says: per step over all scripts (steps labelled
`applicable: false` skipped), a fault is a step labelled missing or wrong, a flag a verdict missing or
wrong; recall = faults flagged / faults, precision = flags on faults / flags. Every miss and false alarm
is listed in the record. Read twice: flat (each script alone) and as projects (each script inside its
repository's own modules, projects/projects.json; the crash finding scored against `fatal_in_project` too).
Mutants: made from tests/check_mutants/make_mutants.py's table into a temporary directory (each of the
eight steps removed and broken, PyTorch / TF loop / Keras fit); a mutant of step s counts as a true
positive for s when s is flagged, a false negative otherwise; any other flagged step of any script
(mutant or correct base) is a false positive for that step. Cases: tests/check_cases (a broken script per
class of mistake and its correct twin), scored the same way.
Upstream examples are read from ../shared/upstream-horovod-0.28.1/examples (not copied); with --run the
MNIST ones get hvdkit's Fashion-MNIST stand-in as Keras's cache, in a temporary home.
Writes benchmarks/results/check.json.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import harness

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "benchmarks", "results", "check.json")
MUTANTS = os.path.join(ROOT, "tests", "check_mutants")
CASES = os.path.join(ROOT, "tests", "check_cases")
UPSTREAM = os.path.join(os.path.dirname(ROOT), "shared", "upstream-horovod-0.28.1", "examples")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "check-corpus")
# The corpus labels' step names, in hvdkit's step order.
LABEL_STEPS = ("init", "pin_gpu", "shard_data", "scale_lr", "distributed_optimizer", "broadcast", "checkpoint_rank0",
               "average_metrics")
# What the static pass must reach on the corpus (issue 24): overall, and on every step with >= 3 faults.
# Issue 39's targets on the corpus, flat and as projects, reached on 2026-11-28 (flat 0.95 / 1.0, projects
# 0.965 / 0.993, every step with >= 3 faults at 0.909 or more): the floor the tests hold the corpus and the
# single-file held-out sets to. The crash finding is held to CRASH_TARGETS flat (not met in projects yet:
# the record says by how much).
ISSUE_TARGETS = {"overall_recall": 0.95, "overall_precision": 0.95, "step_recall": 0.85, "step_precision": 0.85,
                 "step_min_faults": 3}
CORPUS_TARGETS = ISSUE_TARGETS
CRASH_TARGETS = {"recall": 0.8, "precision": 0.9}
sys.path.insert(0, MUTANTS)
sys.path.insert(0, CASES)

# Arguments that keep an upstream example to a few small steps (synthetic benchmarks: a small model).
_TF_SYNTH = ["--model", "MobileNetV2", "--batch-size", "4", "--no-cuda", "--num-batches-per-iter", "1",
             "--num-iters", "3"]
UPSTREAM_ARGS = {
    "tensorflow2_synthetic_benchmark": _TF_SYNTH + ["--num-warmup-batches", "1"],
    "tensorflow2_synthetic_benchmark_elastic": _TF_SYNTH + ["--num-warmup-batches", "1"],
    "tensorflow2_keras_synthetic_benchmark": _TF_SYNTH,
    "pytorch_synthetic_benchmark": ["--model", "resnet18", "--batch-size", "4", "--no-cuda"],
    "pytorch_synthetic_benchmark_elastic": ["--model", "resnet18", "--batch-size", "4", "--no-cuda"],
    "pytorch_mnist": ["--epochs", "1", "--no-cuda"],
    "pytorch_mnist_elastic": ["--epochs", "1", "--no-cuda"],
}


def flagged(path, root=None):
    """(flagged steps, findings) of the static pass; a script it refuses (CheckInputError: "not a Horovod
    script") scores as it reads to a user: no step flagged, each verdict the error."""
    from hvdkit.check import CheckInputError, Finding
    from hvdkit.check.static import analyze
    try:
        findings, _, info = analyze(path, root=root)
    except CheckInputError as exc:
        flagged.info = {}
        return set(), {n: Finding("error", str(exc)) for n in range(1, 9)}
    flagged.info = info  # the last report's info (crash, files read): score_corpus reads the crash
    return {n for n, f in findings.items() if f.verdict in ("missing", "wrong")}, findings


def score(cases):
    """cases: [(target step or None, flagged steps)] -> per-step precision/recall and the counts."""
    out = {}
    for s in range(1, 9):
        tp = sum(1 for t, f in cases if t == s and s in f)
        fn = sum(1 for t, f in cases if t == s and s not in f)
        fp = sum(1 for t, f in cases if t != s and s in f)
        out[str(s)] = {"tp": tp, "fn": fn, "fp": fp,
                       "precision": round(tp / (tp + fp), 3) if tp + fp else None,
                       "recall": round(tp / (tp + fn), 3) if tp + fn else None}
    return out


def static_suite(directory):
    import make_mutants as mm
    made = mm.write(directory)
    cases, misses = [], []
    for flavour, step, kind, what, _ in mm.MUTANTS:
        got, _ = flagged(made[(flavour, step, kind)])
        cases.append((step, got))
        if got != {step}:
            misses.append({"mutant": mm.name(flavour, step, kind), "flagged": sorted(got)})
    for base in mm.BASES.values():
        got, _ = flagged(os.path.join(MUTANTS, base))
        cases.append((None, got))
        if got:
            misses.append({"mutant": base, "flagged": sorted(got)})
    return {"scripts": len(cases), "per_step": score(cases), "not_exactly_their_step": misses}


def cases_suite(directory):
    """The class cases: each broken script should be flagged on its step only, each twin on none."""
    import cases as table
    scored, wrong = [], []
    for case in table.CASES:
        for kind, edits, target in (("broken", case.broken, case.step), ("correct", case.correct, None)):
            path = os.path.join(directory, f"{case.name}_{kind}.py")
            with open(path, "w") as fh:
                fh.write(table.apply(case.trainer, edits))
            got, _ = flagged(path)
            scored.append((target, got))
            if got != ({target} if target else set()):
                wrong.append({"case": f"{case.name} ({kind})", "flagged": sorted(got)})
    return {"scripts": len(scored), "per_step": score(scored), "not_exactly_their_step": wrong}


def ratio(a, b):
    return round(a / b, 3) if b else None


def score_corpus(root=CORPUS, projects=False, limit=None):
    """Per corpus directory (tf, torch) and over both: per-step and overall counts, recall and precision,
    with every miss and false alarm, and the crash finding against the labels' `fatal`. None when the corpus
    is not there. projects=True checks each script inside its project (`projects/<dir>/<stem>/<script>`,
    the project folder as the root; `projects/projects.json`) where the corpus has one, and scores a crash
    against `fatal_in_project` as well; scripts without a project are checked flat, as the corpus README says.
    limit=N reads the first N scripts of each directory only (a smoke run's figures, not the corpus's)."""
    if not os.path.isdir(root):
        return None
    index = _projects(root) if projects else {}
    out, every, crashes = {}, [], []
    for sub in sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "labels.json"))):
        with open(os.path.join(root, sub, "labels.json")) as fh:
            labels = json.load(fh)
        rows, mine = [], []
        labels = dict(sorted(labels.items())[:limit])
        for name, label in labels.items():
            path, proj = os.path.join(root, sub, name), index.get(name)
            if proj:
                path = os.path.join(root, "projects", proj["project"], proj["script"])
            got, findings = flagged(path, root=os.path.join(root, "projects", proj["project"]) if proj else None)
            crash = flagged.info.get("crash")
            fatal = label.get("fatal") or (label.get("fatal_in_project") if proj else None)
            mine.append({"script": f"{sub}/{name}", "fatal": fatal, "crash": crash})
            for n, key in enumerate(LABEL_STEPS, start=1):
                step = label["steps"][key]
                if step.get("applicable") is False:
                    continue
                rows.append({"script": f"{sub}/{name}", "step": n, "label": step["status"],
                             "fault": step["status"] in ("missing", "wrong"), "flagged": n in got,
                             "verdict": findings[n].verdict, "evidence": findings[n].evidence,
                             "why": step.get("why") or step.get("note") or ""})
        out[sub] = _tally(rows, len(labels))
        out[sub]["crash"] = _crash_tally(mine)
        every += rows
        crashes += mine
    out["all"] = _tally(every, sum(v["scripts"] for v in out.values()))
    out["all"]["crash"] = _crash_tally(crashes)
    return out


def _projects(root):
    """{flat script name: {"project": "<dir>/<stem>", "script": path inside it}} for the corpus's projects."""
    path = os.path.join(root, "projects", "projects.json")
    if not os.path.isfile(path):
        return {}
    with open(path) as fh:
        index = json.load(fh)
    return {name: {"project": e["project"], "script": e["script"]} for name, e in index.items() if e.get("project")}


def _crash_tally(rows):
    """The crash finding scored over scripts: a fatal label is a crash to find; a reported crash a flag."""
    found = [r for r in rows if r["fatal"] and r["crash"]]
    flags = [r for r in rows if r["crash"]]
    fatal = [r for r in rows if r["fatal"]]
    return {"fatal": len(fatal), "found": len(found), "reported": len(flags),
            "recall": ratio(len(found), len(fatal)), "precision": ratio(len(found), len(flags)),
            "missed": [{"script": r["script"], "fatal": r["fatal"]} for r in fatal if not r["crash"]],
            "false_alarms": [{"script": r["script"], "crash": r["crash"]} for r in flags if not r["fatal"]]}


def _tally(rows, scripts):
    per_step, tot = {}, {"faults": 0, "tp": 0, "fn": 0, "fp": 0}
    for n in range(1, 9):
        mine = [r for r in rows if r["step"] == n]
        c = {"faults": sum(r["fault"] for r in mine), "tp": sum(r["fault"] and r["flagged"] for r in mine),
             "fn": sum(r["fault"] and not r["flagged"] for r in mine),
             "fp": sum(r["flagged"] and not r["fault"] for r in mine)}
        c["recall"], c["precision"] = ratio(c["tp"], c["faults"]), ratio(c["tp"], c["tp"] + c["fp"])
        per_step[str(n)] = c
        for k in tot:
            tot[k] += c[k]
    tot["recall"], tot["precision"] = ratio(tot["tp"], tot["faults"]), ratio(tot["tp"], tot["tp"] + tot["fp"])
    keep = ("script", "step", "label", "verdict", "evidence", "why")
    return {"scripts": scripts, "per_step": per_step, "overall": tot,
            "misses": [{k: r[k] for k in keep} for r in rows if r["fault"] and not r["flagged"]],
            "false_alarms": [{k: r[k] for k in keep} for r in rows if r["flagged"] and not r["fault"]]}


def corpus_shortfalls(scores, targets=CORPUS_TARGETS):
    """What falls short of `targets` in score_corpus()['all']: [text]; empty when all are met."""
    t, out = targets, []
    overall = scores["overall"]
    for key in ("recall", "precision"):
        if (overall[key] or 0) < t[f"overall_{key}"]:
            out.append(f"overall {key} {overall[key]} < {t[f'overall_{key}']}")
    for n, c in scores["per_step"].items():
        if c["faults"] >= t["step_min_faults"]:
            for key in ("recall", "precision"):
                if (c[key] or 0) < t[f"step_{key}"]:
                    out.append(f"step {n} {key} {c[key]} < {t[f'step_{key}']} ({c['faults']} faults)")
    return out


def run_check(path, args, env=None, timeout=300):
    cmd = [sys.executable, "-m", "hvdkit", "check", path, "--run", "--json", "--timeout", str(timeout), "--", *args]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(),
                          timeout=timeout + 60)
    seconds = round(time.perf_counter() - t0, 1)
    try:
        return json.loads(proc.stdout), seconds
    except json.JSONDecodeError:
        return {"error": (proc.stderr or proc.stdout)[-400:]}, seconds


def dynamic_suite():
    import make_mutants as mm
    cases, rows = [], []
    with tempfile.TemporaryDirectory() as ckpt, tempfile.TemporaryDirectory() as made_dir:
        made = mm.write(made_dir)
        scripts = [(s, made[(f, s, k)]) for f, s, k, _, _ in mm.MUTANTS] + \
            [(None, os.path.join(MUTANTS, b)) for b in mm.BASES.values()]
        for step, path in scripts:
            name = os.path.basename(path)
            report, seconds = run_check(path, ["--ckpt-dir", ckpt], timeout=90)
            got = set(report.get("flagged", []))
            by_run = {int(n): s["verdict"] for n, s in report.get("steps", {}).items() if s["source"] == "run"}
            crash = (report.get("run") or {}).get("crash")
            cases.append((step, got))
            rows.append({"script": name, "flagged": sorted(got), "run_verdicts": by_run, "seconds": seconds,
                         "crash": crash and crash.get("error")})
    return {"scripts": len(rows), "per_step": score(cases), "runs": rows,
            "median_seconds": statistics.median(r["seconds"] for r in rows), "commit": _head_commit()}


def _head_commit():
    """The commit the --run figures were measured at (they outlive a --quick rerun)."""
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or None


def _keep_last_run(record, path):
    """--quick measures the static pass only: the --run figures of the last full run written at `path` (the
    mutants' and each upstream example's) stay in `record`, each with the time it was measured."""
    if not os.path.isfile(path):
        return
    with open(path) as fh:
        last = json.load(fh)
    def stamped(ran):
        return dict(ran, measured_at=ran.get("measured_at", last.get("measured_at")))
    if "run_mutants" in last:
        record["run_mutants"] = stamped(last["run_mutants"])
    for name, row in record["upstream_examples"].items():
        ran = (last.get("upstream_examples") or {}).get(name)
        if isinstance(row, dict) and isinstance(ran, dict) and "run" in ran:
            row["run"] = stamped(ran["run"])


def timing(repeats):
    """The static pass on a 300-line script: a base trainer padded with helper functions it calls."""
    from hvdkit.check.static import analyze
    with open(os.path.join(MUTANTS, "base_torch.py")) as f:
        base = f.read()
    helpers, n = [], 0
    while base.count("\n") + sum(h.count("\n") for h in helpers) < 300:
        helpers.append(f"\n\ndef helper_{n}(values, scale=1.0):\n    total = 0.0\n"
                       "    for i, v in enumerate(values):\n        if i % 2 == 0:\n            total += v * scale\n"
                       "    return total / max(1, len(values))\n")
        n += 1
    calls = "".join(f"    helper_{i}([1.0, 2.0])\n" for i in range(n))
    source = base.replace("    hvd.init()\n", "    hvd.init()\n" + calls, 1).replace(
        'if __name__ == "__main__":', "".join(helpers) + '\n\nif __name__ == "__main__":', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        analyze(f.name)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    cli = subprocess.run([sys.executable, "-m", "hvdkit", "check", f.name], capture_output=True, text=True)
    cli_s = time.perf_counter() - t0
    os.unlink(f.name)
    return {"lines": source.count("\n"), "seconds": harness.stats([round(t, 4) for t in times]),
            "cli_seconds_with_interpreter_start": round(cli_s, 3), "cli_exit": cli.returncode}


# A 20-module project in the shape of real training code: a package of data, model, optimizer, engine and
# utility modules under a train.py that imports them (written by timing_project; all eight steps are done,
# each in a different module).
PROJECT = {
    "proj/__init__.py": "",
    "proj/config.py": """
import argparse


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--out", default="runs")
    return p.parse_args(argv)
""",
    "proj/dist.py": """
import horovod.torch as hvd
import torch


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(1)
    return hvd.rank(), hvd.size()


def is_main():
    return hvd.rank() == 0
""",
    "proj/data/__init__.py": "from proj.data.loader import make_loader\n",
    "proj/data/datasets.py": """
import torch
from torch.utils.data import TensorDataset

from proj.data.transforms import normalize


def synthetic(n, features, classes):
    return TensorDataset(normalize(torch.randn(n, features)), torch.randint(0, classes, (n,)))
""",
    "proj/data/transforms.py": """
def normalize(x, mean=0.0, std=1.0):
    return (x - mean) / std
""",
    "proj/data/loader.py": """
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from proj.data.datasets import synthetic


def make_loader(batch_size, n=8192):
    data = synthetic(n, 32, 10)
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    return DataLoader(data, batch_size=batch_size, sampler=sampler), sampler
""",
    "proj/models/__init__.py": "from proj.models.net import Net\n",
    "proj/models/blocks.py": """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.act = nn.ReLU()

    def forward(self, x):
        return x + self.act(self.fc(x))
""",
    "proj/models/heads.py": """
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, width, classes):
        super().__init__()
        self.out = nn.Linear(width, classes)

    def forward(self, x):
        return self.out(x)
""",
    "proj/models/net.py": """
import torch.nn as nn

from proj.models.blocks import Block
from proj.models.heads import Head


class Net(nn.Module):
    def __init__(self, width=64, depth=8, classes=10):
        super().__init__()
        self.stem = nn.Linear(32, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.head = Head(width, classes)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))
""",
    "proj/optim/__init__.py": "",
    "proj/optim/factory.py": """
import horovod.torch as hvd
import torch


def make_optimizer(model, base_lr):
    opt = torch.optim.SGD(model.parameters(), lr=base_lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
""",
    "proj/optim/schedule.py": """
def warmup_factor(epoch, warmup=5):
    return min(1.0, (epoch + 1) / warmup)
""",
    "proj/engine/__init__.py": "",
    "proj/engine/evaluator.py": """
import horovod.torch as hvd
import torch


def evaluate(model, loader):
    model.eval()
    correct, count = 0, 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            count += len(y)
    return hvd.allreduce(torch.tensor(correct / max(1, count)), name="accuracy").item()
""",
    "proj/engine/trainer.py": """
import horovod.torch as hvd
import torch.nn.functional as F

from proj.engine.evaluator import evaluate
from proj.optim.schedule import warmup_factor
from proj.utils.checkpoint import save
from proj.utils.logging import log


class Trainer:
    def __init__(self, model, optimizer, loader, sampler, out):
        self.model, self.optimizer, self.loader, self.sampler, self.out = model, optimizer, loader, sampler, out
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, epoch):
        self.sampler.set_epoch(epoch)
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = group.setdefault("initial_lr", group["lr"]) * warmup_factor(epoch)
        for x, y in self.loader:
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch(epoch)
            accuracy = evaluate(self.model, self.loader)
            log(f"epoch {epoch}: accuracy {accuracy:.3f}")
            save(self.model, self.optimizer, epoch, self.out)
""",
    "proj/utils/__init__.py": "",
    "proj/utils/checkpoint.py": """
import os

import horovod.torch as hvd
import torch


def save(model, optimizer, epoch, folder):
    if hvd.rank() != 0:
        return
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
               os.path.join(folder, "checkpoint.pt"))
""",
    "proj/utils/logging.py": """
from proj.dist import is_main


def log(message):
    if is_main():
        print(message, flush=True)
""",
    "train.py": """
\"\"\"Trains proj's Net on every rank: horovodrun -np 4 python train.py\"\"\"
from proj.config import parse
from proj.data import make_loader
from proj.dist import setup
from proj.engine.trainer import Trainer
from proj.models import Net
from proj.optim.factory import make_optimizer


def main():
    args = parse()
    setup()
    loader, sampler = make_loader(args.batch_size)
    model = Net(args.width, args.depth)
    trainer = Trainer(model, make_optimizer(model, args.lr), loader, sampler, args.out)
    trainer.fit(args.epochs)


if __name__ == "__main__":
    main()
""",
}


def write_project(folder, pad=120):
    """Write PROJECT under `folder` (a pyproject.toml at its root), each module padded with `pad` lines of
    helper functions it defines (unused, as real modules have); the path of train.py."""
    with open(os.path.join(folder, "pyproject.toml"), "w") as fh:
        fh.write("[project]\nname = 'proj'\n")
    for rel, source in PROJECT.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        padding = "".join(f"\n\ndef _helper_{i}(values, scale=1.0):\n    total = 0.0\n    for v in values:\n"
                          f"        total += v * scale\n    return total / max(1, len(values))\n"
                          for i in range(pad // 6)) if rel.endswith(".py") and rel != "train.py" else ""
        with open(path, "w") as fh:
            fh.write(source.lstrip("\n") + padding)
    return os.path.join(folder, "train.py")


def timing_project(repeats):
    """The static pass on a 20-module project (PROJECT): seconds per check, in one process, the modules read
    and the steps flagged (none: every step is done, each in one of its modules)."""
    from hvdkit.check.static import analyze
    with tempfile.TemporaryDirectory() as folder:
        script = write_project(folder)
        times, info, findings = [], None, None
        for _ in range(repeats):
            t0 = time.perf_counter()
            findings, _, info = analyze(script, root=folder)
            times.append(time.perf_counter() - t0)
        lines = sum(open(os.path.join(folder, rel)).read().count("\n") for rel in PROJECT)
        t0 = time.perf_counter()
        cli = subprocess.run([sys.executable, "-m", "hvdkit", "check", script, "--root", folder],
                             capture_output=True, text=True)
        cli_s = time.perf_counter() - t0
    return {"modules": len([r for r in PROJECT if r.endswith(".py") and r != "train.py"]), "lines": lines,
            "files_read": len(info["files_read"]), "seconds": harness.stats([round(t, 4) for t in times]),
            "flagged": sorted(n for n, f in findings.items() if f.verdict in ("missing", "wrong")),
            "cli_seconds_with_interpreter_start": round(cli_s, 3), "cli_exit": cli.returncode}


def upstream(run):
    if not os.path.isdir(UPSTREAM):
        return {"skipped": f"{UPSTREAM} not found"}
    out = {}
    env = _standin_env() if run else None
    for path in sorted(glob.glob(os.path.join(UPSTREAM, "**", "*.py"), recursive=True)):
        name = os.path.relpath(path, UPSTREAM)
        got, findings = flagged(path)
        row = {"static": {n: f"{f.verdict}: {f.evidence}" for n, f in findings.items()}, "flagged": sorted(got)}
        if run:
            args = UPSTREAM_ARGS.get(os.path.basename(path)[:-3], [])
            report, seconds = run_check(path, args, env=env, timeout=300)
            r = report.get("run") or {}
            row["run"] = {"seconds": seconds, "summary": r.get("summary"), "crash": r.get("crash"),
                          "flagged": report.get("flagged"), "error": report.get("error"),
                          "verdicts": {n: f"{s['verdict']} ({s['source']}): {s['evidence'][:200]}"
                                       for n, s in report.get("steps", {}).items() if s["source"] == "run"}}
        out[name] = row
    return out


def _standin_env():
    """A temporary home whose Keras cache holds the Fashion-MNIST stand-in as mnist.npz and mnist-<rank>.npz."""
    from hvdkit.data import datasets, keras_standin
    home = tempfile.mkdtemp(prefix="check-bench-home-")
    for name in ("mnist.npz", "mnist-0.npz", "mnist-1.npz"):
        datasets.write_keras_mnist(os.path.join(home, ".keras", "datasets", name), quiet=True)
    env = dict(os.environ, HOME=home, KERAS_HOME=os.path.join(home, ".keras"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (keras_standin.DIR, ROOT, env.get("PYTHONPATH")) if p)
    return env


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="static pass only")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--corpus-limit", type=int, metavar="N",
                    help="score only the first N corpus scripts of each directory (a smoke run; "
                         "tests/test_check_corpus.py scores them all)")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    t0, load_before = time.time(), harness.loadavg()
    with tempfile.TemporaryDirectory() as made:
        os.makedirs(os.path.join(made, "mutants"))
        os.makedirs(os.path.join(made, "cases"))
        record = {"command": "python -m benchmarks.check_bench" + (" --quick" if args.quick else "")
                  + (f" --corpus-limit {args.corpus_limit}" if args.corpus_limit else ""),
                  "static_corpus": score_corpus(limit=args.corpus_limit),
                  "static_corpus_projects": score_corpus(projects=True, limit=args.corpus_limit),
                  "static_mutants": static_suite(os.path.join(made, "mutants")),
                  "static_cases": cases_suite(os.path.join(made, "cases")),
                  "static_speed_300_lines": timing(args.repeats),
                  "static_speed_20_modules": timing_project(args.repeats)}
    record["upstream_examples"] = upstream(run=not args.quick)
    if args.quick:
        _keep_last_run(record, args.out)
    else:
        record["run_mutants"] = dynamic_suite()
    speed = record["static_speed_300_lines"]["seconds"]["median"]
    project_speed = record["static_speed_20_modules"]["seconds"]["median"]
    per = record["static_mutants"]["per_step"]
    corpus = record["static_corpus"]
    record["targets"] = {
        "static_300_lines_seconds": {"target": "< 1", "measured": speed, "met": speed < 1},
        "static_20_modules_seconds": {"target": "< 3", "measured": project_speed, "met": project_speed < 3},
        "static_recall_every_step": {"target": "1.0", "measured": min(v["recall"] for v in per.values()),
                                     "met": all(v["recall"] == 1.0 for v in per.values())},
        "static_precision_every_step": {"target": "1.0", "measured": min(v["precision"] for v in per.values()),
                                        "met": all(v["precision"] == 1.0 for v in per.values())},
    }
    for key in ("static_corpus", "static_corpus_projects"):
        corpus = record[key]
        if corpus is None:
            record["targets"][key] = {"skipped": f"{CORPUS} not found"}
            continue
        record["targets"][key] = {
            "measured": {k: corpus["all"]["overall"][k] for k in ("recall", "precision")},
            "tests": {"target": CORPUS_TARGETS, "shortfalls": corpus_shortfalls(corpus["all"])},
            "issue_39": {"target": ISSUE_TARGETS, "shortfalls": corpus_shortfalls(corpus["all"], ISSUE_TARGETS)}}
        record["targets"][key]["met"] = not (record["targets"][key]["tests"]["shortfalls"] or
                                             record["targets"][key]["issue_39"]["shortfalls"])
        crash = corpus["all"]["crash"]
        record["targets"][key + "_crash"] = {"target": CRASH_TARGETS, "measured": {
            k: crash[k] for k in ("fatal", "found", "reported", "recall", "precision")},
            "met": all((crash[k] or 0) >= v for k, v in CRASH_TARGETS.items())}
    record["notes"] = ["Mutants and class cases are this project's own (tests/check_mutants, tests/check_cases); the "
                       "check corpus is 66 scripts of other authors, labelled by hand, read flat and inside their "
                       "repositories' modules (projects/): the development set, so its figures are optimistic for "
                       "scripts never seen (tests/check_heldout/README.md: the project sets j, k, l). "
                       "docs/check.md lists each upstream verdict checked by reading the script.",
                       f"The static pass took {speed:.3f} s (median of {args.repeats}) on a "
                       f"{record['static_speed_300_lines']['lines']}-line script and {project_speed:.3f} s on a "
                       f"{record['static_speed_20_modules']['modules']}-module project "
                       f"({record['static_speed_20_modules']['lines']} lines)."]
    if args.corpus_limit:
        record["notes"].append(f"A smoke run: only the first {args.corpus_limit} corpus scripts of each directory "
                               "were scored, so the corpus figures and targets here are not the corpus's.")
    record["seconds"] = round(time.time() - t0, 1)
    harness.write(record, args.out, load_before)
    print(json.dumps(record["targets"], indent=2))


if __name__ == "__main__":
    main()
