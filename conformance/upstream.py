"""Horovod's own parallel test suite and example scripts, run unmodified at 2 ranks on this machine's build.

    python -m conformance.upstream [DIR]                  # DIR: Horovod's source tree at v0.28.1
    python -m conformance.upstream DIR --files test_torch.py --no-examples
    python -m conformance.upstream --quick               # smoke: one small file, no examples (make test);
                                                        # without the default DIR it only records that

DIR defaults to ../shared/upstream-horovod-0.28.1 beside the repository; without it, get Horovod's tests
with `git clone --depth 1 -b v0.28.1 https://github.com/horovod/horovod` and pass that directory.
Every DIR/test/parallel/test_*.py runs as `mpirun -n 2 python -m pytest FILE` from that folder, with a
plugin (conformance/upstream_plugin.py) that writes each rank's outcomes: a test passes only if it passed
on both ranks, and every failure is recorded with its exception, message and telling frames.
Failures that come only from the test's own use of an API the framework removed are excused by the
table in conformance/upstream_known.py, each with its reason, and only when the failure matches it.
Writes conformance/results/upstream.json. Needs `parameterized` and `mock` (Horovod's tests import them).
HOME and KERAS_HOME point at a temporary directory, so nothing lands in the user's own caches.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from benchmarks import harness
from conformance import upstream_known
from hvdkit.common.errors import UsageError
from hvdkit.scale import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "conformance", "results", "upstream.json")
DEFAULT_DIR = os.path.join(os.path.dirname(ROOT), "shared", "upstream-horovod-0.28.1")
HOW_TO_GET = ("get Horovod's tests with `git clone --depth 1 -b v0.28.1 https://github.com/horovod/horovod` "
              "and pass that directory: python -m conformance.upstream horovod")
RANKS = 2
# The files the issue measures first; any other test_*.py in the folder runs after them.
FIRST = ("test_torch.py", "test_tensorflow.py", "test_tensorflow2_keras.py", "test_tensorflow_keras.py",
         "test_keras.py")
QUICK = ("test_timeline.py",)
NEEDS = ("parameterized", "mock")
GPU_WORDS = ("gpu", "cuda", "nccl", "rocm")


def test_files(test_dir, only=None):
    names = sorted(n for n in os.listdir(test_dir) if n.startswith("test_") and n.endswith(".py"))
    if only:
        missing = [n for n in only if n not in names]
        if missing:
            raise UsageError(f"{', '.join(missing)} not in {test_dir}: choose among {', '.join(names)}")
        names = list(only)
    return [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]


def sandbox_env(tmp, threads=None):
    """Launch environment for upstream code: hvdkit's child env, a throwaway HOME/KERAS_HOME, no bytecode
    written into the (possibly shared, read-only) upstream tree."""
    env = launch.child_env(RANKS, threads=threads)
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    env.update(HOME=home, KERAS_HOME=os.path.join(home, ".keras"), PYTHONDONTWRITEBYTECODE="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""),
               PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""))
    return env


def run_group(argv, cwd, env, timeout, stdout):
    """(exit status or None on timeout, output text or None). The launcher gets its own process group, all
    killed on timeout: killing mpirun or horovodrun alone can leave its ranks running."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out


def read_ranks(out_dir):
    """{rank: [events]} from the plugin's per-rank JSON-lines files."""
    ranks = {}
    for name in sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else ():
        if name.startswith("rank-") and name.endswith(".jsonl"):
            with open(os.path.join(out_dir, name), encoding="utf-8") as f:
                ranks[int(name[5:-6])] = [json.loads(line) for line in f if line.strip()]
    return ranks


def _rank_outcomes(events):
    """{test: {"outcome", "failures": [...], "skip_reason", "started"}} for one rank."""
    tests = {}
    for e in events:
        if e["event"] == "start":
            tests.setdefault(e["test"], {"outcome": None, "failures": [], "skip_reason": None, "started": True})
        elif e["event"] == "report":
            t = tests.setdefault(e["test"], {"outcome": None, "failures": [], "skip_reason": None, "started": True})
            if e["outcome"] == "failed":
                t["failures"].append({"subtest": e["subtest"], "when": e["when"], **e["failure"]})
                t["outcome"] = "failed"
            elif e["outcome"] == "skipped" and t["outcome"] != "failed":
                t["outcome"], t["skip_reason"] = "skipped", e["skip_reason"]
            elif e["when"] == "call" and e["subtest"] is None and t["outcome"] is None:
                t["outcome"] = "passed"
    return tests


def combine(ranks, ended_how):
    """One outcome per test over all ranks: passed only if passed on every rank; failed if it failed on any
    rank or did not finish on one (`ended_how` says why the launch ended); else skipped."""
    collected = next((e["tests"] for evs in ranks.values() for e in evs if e["event"] == "collected"), [])
    per_rank = {r: _rank_outcomes(evs) for r, evs in ranks.items()}
    names = list(dict.fromkeys(collected + [t for outs in per_rank.values() for t in outs]))
    tests = {}
    for name in names:
        runs = {r: outs.get(name) for r, outs in per_rank.items()}
        same = {}  # one entry per distinct failure, with the ranks it happened on
        for r, run in sorted(runs.items()):
            for f in (run or {}).get("failures", []):
                key = (f["subtest"], f["type"], f["message"], f["frame"])
                same.setdefault(key, {"ranks": [], **f})["ranks"].append(r)
        failures = list(same.values())
        unfinished = [r for r, run in sorted(runs.items()) if run and run["started"] and run["outcome"] is None]
        if unfinished:
            failures.append({"ranks": unfinished, "subtest": None, "when": "call", "type": "did not finish",
                             "message": ended_how, "frame": None, "test_frame": None, "horovod_frame": None})
        outcomes = {run["outcome"] if run else None for run in runs.values()}
        if failures:
            tests[name] = {"outcome": "failed", "failures": failures}
        elif outcomes == {"passed"} and len(runs) == RANKS:
            tests[name] = {"outcome": "passed"}
        elif None in outcomes or len(runs) < RANKS:
            tests[name] = {"outcome": "not run", "reason": ended_how}
        else:
            reason = next(run["skip_reason"] for run in runs.values() if run["outcome"] == "skipped")
            tests[name] = {"outcome": "skipped", "reason": reason}
    return tests


def summarize(name, tests, seconds, exit_status, ended_how):
    """A file's record: counts, every failure with its reason, excused ones marked from the table."""
    counts = {"passed": 0, "failed": 0, "excused": 0, "skipped_gpu": 0, "skipped_other": 0, "not_run": 0}
    failures, excused, skips, other = [], [], {}, {}
    for test, t in tests.items():
        if t["outcome"] == "passed":
            counts["passed"] += 1
        elif t["outcome"] == "failed":
            entry = {"test": test, "failures": t["failures"]}
            why = upstream_known.excuse(name, test, t["failures"])
            if why:
                counts["excused"] += 1
                excused.append({**entry, "excused_because": why})
            else:
                counts["failed"] += 1
                failures.append(entry)
        elif t["outcome"] == "skipped":
            gpu = any(w in (t["reason"] or "").lower() for w in GPU_WORDS)
            counts["skipped_gpu" if gpu else "skipped_other"] += 1
            skips[t["reason"]] = skips.get(t["reason"], 0) + 1
            if not gpu:
                other[test] = t["reason"]
        else:
            counts["not_run"] += 1
    counts["skipped"] = counts["skipped_gpu"] + counts["skipped_other"]
    counts["failed_subtests"] = sum(len(f["failures"]) for f in failures)
    return {"file": name, "seconds": round(seconds, 1), "exit_status": exit_status, "ended": ended_how,
            **counts, "failures": failures, "excused_tests": excused, "skip_reasons": skips,
            "skipped_not_gpu": other}


def run_file(test_dir, name, tmp, timeout):
    out_dir = os.path.join(tmp, name.removesuffix(".py"))
    env = sandbox_env(tmp)
    env["HVDKIT_UPSTREAM_OUT"] = out_dir
    argv = launch.command(RANKS, [sys.executable, "-m", "pytest", name, "-p", "conformance.upstream_plugin",
                                  "-p", "no:cacheprovider", "-q", "-rN", "--tb=short", "--color=no"],
                          "mpirun", env_names=("HVDKIT_UPSTREAM_OUT", "HOME", "KERAS_HOME", "PYTHONPATH"))
    print(f"== {name}: {' '.join(argv)}", flush=True)
    start = time.perf_counter()
    log_path = os.path.join(tmp, name + ".log")
    with open(log_path, "w") as log:
        status, _ = run_group(argv, test_dir, env, timeout, log)
    ended = (f"the launch ended with exit status {status}" if status is not None
             else f"timed out after {timeout} s (killed)")
    seconds = time.perf_counter() - start
    ranks = read_ranks(out_dir)
    if not ranks:
        with open(log_path) as f:
            tail = f.read()[-1500:]
        ended += f"; no rank reported any test. Output ends: {tail}"
    record = summarize(name, combine(ranks, ended), seconds, status, ended)
    print(f"   {record['passed']} passed, {record['failed']} failed, {record['excused']} excused, "
          f"{record['skipped']} skipped ({record['skipped_gpu']} GPU), {record['not_run']} not run, "
          f"{seconds:.0f} s", flush=True)
    return record


def check_dir(directory):
    test_dir = os.path.join(directory, "test", "parallel")
    if not os.path.isdir(test_dir):
        raise UsageError(f"no Horovod test folder {test_dir}: {HOW_TO_GET}")
    return test_dir


def check_modules():
    import importlib.util
    missing = [m for m in NEEDS if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(f"Horovod's tests import {' and '.join(missing)}: "
                         f"{os.path.basename(sys.executable)} -m pip install {' '.join(missing)}")


def totals(files):
    keys = ("passed", "failed", "excused", "skipped", "skipped_gpu", "skipped_other", "not_run", "seconds")
    return {k: round(sum(f[k] for f in files), 1) for k in keys}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default=DEFAULT_DIR, help="Horovod source tree (has test/parallel/)")
    ap.add_argument("--files", nargs="+", help="only these files of test/parallel/")
    ap.add_argument("--no-examples", action="store_true", help="run the tests only")
    ap.add_argument("--quick", action="store_true", help=f"smoke: {', '.join(QUICK)} only, no examples")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per test file (default 3600)")
    ap.add_argument("--example-timeout", type=float,
                    help="seconds per example (default: each its own, conformance/upstream_examples.py LIMITS)")
    ap.add_argument("--only-examples", action="store_true", help="run the examples only")
    ap.add_argument("--examples", nargs="+", metavar="WORD",
                    help="only the examples whose path contains one of these words (e.g. pytorch_mnist)")
    ap.add_argument("--out", default=RESULTS)
    args = ap.parse_args(argv)
    directory = os.path.abspath(args.dir)
    if args.quick and args.dir == DEFAULT_DIR and not os.path.isdir(directory):
        # make test's smoke run of every benchmark: most machines have no copy of Horovod's tests.
        harness.write({"command": "python -m conformance.upstream --quick", "not_run": f"no {directory}: {HOW_TO_GET}"},
                      args.out, harness.loadavg())
        print(f"conformance.upstream: not run: no {directory}")
        return 0
    try:
        test_dir = check_dir(directory)
        check_modules()
        files = test_files(test_dir, args.files or (QUICK if args.quick else None))
    except UsageError as exc:
        print(f"conformance.upstream: error: {exc}", file=sys.stderr)
        return 2
    load_before = harness.loadavg()
    start = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="hvdkit-upstream-")
    try:
        records = [] if args.only_examples else [run_file(test_dir, name, tmp, args.timeout) for name in files]
        examples = []
        if not (args.no_examples or args.quick):
            from conformance.upstream_examples import run_examples
            examples = run_examples(directory, tmp, sandbox_env, run_group, args.example_timeout, args.examples)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = totals(records)
    examples_ok = sum(e["status"] == "passed" for e in examples)
    result = {
        "command": " ".join(["python -m conformance.upstream", *(argv if argv is not None else sys.argv[1:])]),
        "upstream_dir": directory, "ranks": RANKS,
        "notes": [
            "Horovod's test/parallel files run unmodified as `mpirun -n 2 python -m pytest FILE`; a test passes "
            "only if it passed on both ranks. 'excused': fails only because the test itself uses an API the "
            "framework removed (reason per test, from conformance/upstream_known.py). Seconds are wall time on "
            "a machine that may have been shared.",
            "failure frames: 'frame' is the innermost, 'test_frame' the innermost in the test's own file, "
            "'horovod_frame' the innermost inside Horovod.",
            "examples: Horovod's scripts unmodified at 2 ranks, each under its own time limit ('limit', seconds; "
            "'long_because' when it is long); the MNIST ones on Fashion-MNIST standing in ('data' says how), "
            "nothing downloaded. 'excused': stops in the script's own Keras 2 / TensorFlow 1 code.",
        ],
        "targets": {},
        "totals": total, "files": records, "examples": examples,
        "examples_totals": {status: sum(e["status"] == status for e in examples)
                            for status in ("passed", "excused", "failed", "timed out", "needs torchvision")},
        "examples_seconds": round(sum(e["seconds"] or 0 for e in examples), 1),
        "wall_seconds": round(time.perf_counter() - start, 1),
    }
    if records:
        result["targets"]["non-GPU tests pass, but the excused"] = {
            "target": "0 failed, 0 not run", "measured": f"{total['failed']} failed, {total['not_run']} not run",
            "met": total["failed"] == 0 and total["not_run"] == 0}
    if examples:
        result["targets"]["examples run to completion"] = {
            "target": "every example passes but those that need torchvision and the excused",
            "measured": f"{examples_ok} passed of "
                        f"{sum(e['status'] not in ('needs torchvision', 'excused') for e in examples)}",
            "met": all(e["status"] in ("passed", "needs torchvision", "excused") for e in examples)}
    harness.write(result, args.out, load_before)
    print(f"{args.out}: {total['passed']} passed, {total['failed']} failed, {total['excused']} excused, "
          f"{total['skipped']} skipped, {total['not_run']} not run; examples {examples_ok}/{len(examples)} passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
