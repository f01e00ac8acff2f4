"""`hvdkit check --run` on the check corpus: how each real script's run ends, and what the run flags.

    python -m benchmarks.check_run_bench                 # every corpus script whose imports are installed
    python -m benchmarks.check_run_bench --only synml    # the scripts whose file name contains "synml"

The corpus is read from ../shared/check-corpus/{tf,torch} beside the repository (never copied). A script
is run when every module it imports outside a try/except ImportError is installed here; the others are
listed with the modules they lack. Each runnable script is launched as `hvdkit check SCRIPT --run --json`
(2 ranks, 3 optimizer steps, no script arguments: its defaults, as a user's first try would be), in a
temporary directory, and its run must end with observed steps or a crash verdict on a step.

Scoring (the corpus README's rules): a fault is a step labelled missing or wrong; a flag is a verdict of
missing or wrong. Three sets of flags are scored against the labels: the run's own flags from what the
ranks did (observed), the run's crash verdicts, and the merged report's flags (static + run).
Writes benchmarks/results/check_run.json.
"""
import argparse
import ast
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

from benchmarks import harness

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "check-corpus")
OUT = os.path.join(ROOT, "benchmarks", "results", "check_run.json")
STEP_NAMES = ("init", "pin_gpu", "shard_data", "scale_lr", "distributed_optimizer", "broadcast",
              "checkpoint_rank0", "average_metrics")
FLAGS = ("missing", "wrong")


def required_imports(path):
    """Top-level module names the script imports outside a try that catches ImportError."""
    tree = ast.parse(open(path).read())
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            guarded |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return sorted(names - {"__future__"})


def _catches_import_error(handler):
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(getattr(k, "id", "") in ("ImportError", "ModuleNotFoundError", "Exception")
                                       for k in kinds)


def missing_modules(path):
    return [m for m in required_imports(path) if importlib.util.find_spec(m) is None]


def check_run(path, timeout):
    with tempfile.TemporaryDirectory(prefix="hvdkit-corpus-run-") as cwd:
        t0 = time.time()
        proc = subprocess.run([sys.executable, "-m", "hvdkit", "check", path, "--run", "--json",
                               "--timeout", str(timeout)], capture_output=True, text=True, cwd=cwd,
                              timeout=timeout + 120)
        seconds = round(time.time() - t0, 1)
    try:
        return json.loads(proc.stdout), seconds
    except ValueError:
        return {"error": (proc.stderr or proc.stdout)[-600:]}, seconds


def summarize(report):
    """One row: how the run ended (steps observed per rank, or the crash and its step) and the flags."""
    run = report.get("run") or {}
    crash = run.get("crash")
    steps = {r: v["steps"] for r, v in (run.get("per_rank") or {}).items()}
    run_flags = sorted(int(n) for n, s in report["steps"].items() if s["source"] == "run" and s["verdict"] in FLAGS)
    crash_step = crash and crash.get("step")
    return {"observed_steps": steps, "crash": crash and {k: crash.get(k) for k in ("rank", "error", "line", "step",
                                                                                     "why")},
            "verdict_on_crash": crash_step and report["steps"][str(crash_step)]["verdict"],
            "observed_flags": [s for s in run_flags if s != crash_step],
            "crash_flags": [crash_step] if crash_step in run_flags else [],
            "report_flags": report.get("flagged", []), "simulated": run.get("simulated", []),
            "seconds_run": run.get("seconds"), "ended_with": _ended_with(steps, crash)}


def _ended_with(steps, crash):
    if crash and crash.get("step"):
        where = f"line {crash['line']}" if crash.get("line") else "no line"
        return f"crash verdict on step {crash['step']} ({where}: {crash['error'][:90]})"
    if steps and max(steps.values()) > 0:
        return f"observed steps {min(steps.values())}-{max(steps.values())} per rank"
    return "NO VERDICT"


def score(rows, labels, key):
    per_step = {}
    for s, name in enumerate(STEP_NAMES, start=1):
        tp = fn = fp = 0
        for script, row in rows.items():
            label = labels[script]["steps"][name]
            if label.get("applicable") is False:
                continue
            fault, flag = label.get("status") in FLAGS, s in row[key]
            tp, fn, fp = tp + (fault and flag), fn + (fault and not flag), fp + (flag and not fault)
        per_step[name] = {"tp": tp, "fn": fn, "fp": fp}
    tp, fn, fp = (sum(v[k] for v in per_step.values()) for k in ("tp", "fn", "fp"))
    return {"overall": {"tp": tp, "fn": fn, "fp": fp, "recall": round(tp / (tp + fn), 3) if tp + fn else None,
                        "precision": round(tp / (tp + fp), 3) if tp + fp else None}, "per_step": per_step}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only scripts whose file name contains this")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per --run launch")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    if not os.path.isdir(CORPUS):
        print(f"no corpus at {CORPUS}: put shared/check-corpus beside the repository", file=sys.stderr)
        return 2
    load_before = harness.loadavg()
    rows, skipped, labels = {}, {}, {}
    for framework in ("tf", "torch"):
        with open(os.path.join(CORPUS, framework, "labels.json")) as f:
            for name, label in json.load(f).items():
                labels[f"{framework}/{name}"] = label
    for key in sorted(labels):
        if args.only and args.only not in key:
            continue
        path = os.path.join(CORPUS, key)
        lacking = missing_modules(path)
        if lacking:
            skipped[key] = f"imports {', '.join(lacking)}: not installed here"
            print(f"skip {key}: {skipped[key]}", flush=True)
            continue
        report, seconds = check_run(path, args.timeout)
        if "error" in report:
            rows[key] = {"ended_with": "NO VERDICT", "error": report["error"], "seconds": seconds,
                         "observed_flags": [], "crash_flags": [], "report_flags": []}
        else:
            rows[key] = {**summarize(report), "seconds": seconds}
            error = (rows[key]["crash"] or {}).get("error") or ""
            if error.startswith("ModuleNotFoundError"):  # imported through a library (torch.utils.tensorboard)
                skipped[key] = (f"{error.split(': ', 1)[1]} (found when run; its run ended with "
                                f"{rows[key]['ended_with']})")
                print(f"skip {key}: {skipped[key]}", flush=True)
                del rows[key]
                continue
        print(f"{key}: {rows[key]['ended_with']}; run flags {rows[key]['observed_flags']} "
              f"crash {rows[key]['crash_flags']} report {rows[key]['report_flags']} ({seconds} s)", flush=True)
    result = {"command": "python -m benchmarks.check_run_bench " + " ".join(argv if argv is not None else sys.argv[1:]),
              "corpus": "../shared/check-corpus", "ranks": 2, "steps": 3, "timeout_s": args.timeout,
              "scripts": rows, "skipped": skipped,
              "no_verdict": sorted(k for k, r in rows.items() if r["ended_with"] == "NO VERDICT"),
              "score_observed": score(rows, labels, "observed_flags"),
              "score_observed_and_crash": score({k: {**r, "run_flags": r["observed_flags"] + r["crash_flags"]}
                                                 for k, r in rows.items()}, labels, "run_flags"),
              "score_report": score(rows, labels, "report_flags")}
    if not args.only:
        harness.write(result, args.out, load_before)
    for k in ("score_observed", "score_observed_and_crash", "score_report"):
        print(k, result[k]["overall"])
    print(f"{len(rows)} run, {len(skipped)} skipped, {len(result['no_verdict'])} without a verdict")
    return 1 if result["no_verdict"] else 0


if __name__ == "__main__":
    sys.exit(main())
