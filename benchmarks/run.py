"""`make bench`: run every benchmark, write benchmarks/results/*.json and docs/BENCHMARKS.md (their list).

    python -m benchmarks.run                 # all, full size (hours on 2 cores; a quiet machine)
    python -m benchmarks.run --only pi       # one of them (the page keeps the others' earlier records)
    python -m benchmarks.run --page          # rewrite docs/BENCHMARKS.md from the records, run nothing
    python -m benchmarks.run --quick --out-dir /tmp/b   # smoke: tiny sizes, no docs written (make test)

Each benchmark is a module runnable on its own (`python -m benchmarks.pi_bench`), with its targets
recorded beside the measurements; this runner adds the machine description and the generated page.
"""
import argparse
import datetime
import importlib.util
import json
import os
import subprocess
import sys

from benchmarks.harness import RESULTS, ROOT, machine

PAGE = os.path.join(ROOT, "docs", "BENCHMARKS.md")

# name: (module, full-size arguments, quick arguments). Every module takes --out FILE.
BENCHMARKS = {
    "step_torch": ("benchmarks.step_bench", ["--framework", "torch"], ["--framework", "torch", "--quick"]),
    "step_tf": ("benchmarks.step_bench", ["--framework", "tf"], ["--framework", "tf", "--quick"]),
    "allreduce": ("benchmarks.allreduce_bench", [], ["--quick"]),
    "pi": ("benchmarks.pi_bench", [],
           ["--loop-n", "20000", "--rate-n", "200000", "--scale-n", "400000", "--repeats", "1"]),
    "scaling": ("benchmarks.scaling_bench", [], ["--quick"]),
    "resnet": ("benchmarks.resnet_bench", [], ["--quick"]),
    "conv": ("benchmarks.conv_bench", [], ["--quick"]),
    "timeline": ("benchmarks.timeline_bench", [], ["--sizes", "1", "--repeats", "1"]),
    # the smoke run times the static pass 3 times, not 20, and scores 2 corpus scripts per directory, flat and
    # in projects (tests/test_check_corpus.py scores all 66 both ways): its targets are the full run's to measure
    "check": ("benchmarks.check_bench", [], ["--quick", "--repeats", "3", "--corpus-limit", "2"]),
    # the smoke run scores one single-file set and one project set (tests/test_check_heldout.py scores them all)
    "check_heldout": ("benchmarks.check_heldout_bench", [], ["--sets", "a,j"]),
}


def run(name, quick, out_dir):
    module, full, small = BENCHMARKS[name]
    if importlib.util.find_spec(module) is None:
        return {"name": name, "command": module, "status": "failed (module missing)"}
    out = os.path.join(out_dir, f"{name}.json")
    argv = [sys.executable, "-m", module, *(small if quick else full), "--out", out]
    print(f"== {name}: {' '.join(argv[1:])}", flush=True)
    proc = subprocess.run(argv, cwd=ROOT)
    if proc.returncode != 0 or not os.path.exists(out):
        return {"name": name, "command": " ".join(argv[2:]), "status": f"failed (exit {proc.returncode})"}
    with open(out) as f:
        result = json.load(f)
    # The page says when each record was measured (a file's mtime does not survive a git clone); the
    # harness stamps it, a benchmark not on the harness gets it here.
    result.setdefault("measured_at", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    return {"name": name, "command": " ".join(argv[2:]), "status": "ok", "result": result}


def _stamp(result, command):
    """(when the record was measured, the command that made it, without `python -m `)."""
    return (result.get("measured_at", "date not recorded: see the file's git log"),
            result.get("command", command).removeprefix("python -m ").strip())


def earlier(name, out_dir):
    """The record a previous run left for a benchmark not run now, so the page always covers them all."""
    path = os.path.join(out_dir, f"{name}.json")
    if not os.path.exists(path):
        return {"name": name, "command": BENCHMARKS[name][0], "status": "not run yet"}
    with open(path) as f:
        result = json.load(f)
    module, full, _ = BENCHMARKS[name]
    now = " ".join([module, *full])
    when, then = _stamp(result, now)
    ran_as = "" if then.split(" --out")[0] == now else f", run then as `python -m {then}`"
    return {"name": name, "command": now, "status": f"ok (an earlier run, measured {when}{ran_as})", "result": result}


def others(out_dir):
    """The records there that no entry of BENCHMARKS makes (a variant run by hand),
    so the page shows every record the documents can link to."""
    found = []
    for file in sorted(os.listdir(out_dir)):
        name, ext = os.path.splitext(file)
        if ext != ".json" or name in BENCHMARKS:
            continue
        with open(os.path.join(out_dir, file)) as f:
            result = json.load(f)
        if isinstance(result, dict):
            when, command = _stamp(result, "(not recorded)")
            found.append({"name": name, "command": command,
                          "status": f"ok (not made by `make bench`; measured {when})", "result": result})
    return found


def _targets(result):
    """'met of all' for a record's targets, and the names of those not met."""
    targets = result.get("targets")
    targets = [(k, v) for k, v in targets.items() if isinstance(v, dict)] if isinstance(targets, dict) else []
    missed = [k for k, v in targets if not v.get("met")]
    return (f"{len(targets) - len(missed)} of {len(targets)}" if targets else "none set"), missed


def page(runs, info):
    """docs/BENCHMARKS.md: one screen, a row per record. The records hold every measurement, their notes
    and targets; docs/performance.md quotes the figures, each linked to its record."""
    versions = ", ".join(f"{k} {v}" for k, v in info.get("versions", {}).items())
    machine_line = ", ".join(str(info[k]) + suffix for k, suffix in
                             (("cpu", ""), ("cores", " cores"), ("memory_gib", " GiB")) if k in info)
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`python -m benchmarks.run`; `--page` rewrites it from the records alone); do",
             "not edit by hand. One row per record in `benchmarks/results/`: the record (JSON) holds every",
             "measurement, its notes, its targets and the machine it ran on. The figures are quoted, each linked to",
             "its record, in [performance.md](performance.md).", "",
             f"Machine when this page was written ({datetime.date.today().isoformat()}): {machine_line}.",
             f"Versions: {versions or 'not read'}.", "",
             "| record | measured | targets met | command |", "|---|---|---|---|"]
    missed_lines = []
    for r in runs:
        record = f"[{r['name']}.json](../benchmarks/results/{r['name']}.json)"
        if "result" not in r:
            lines.append(f"| {r['name']} | {r['status']} | | `python -m {r['command']}` |")
            continue
        when, _ = _stamp(r["result"], r["command"])
        met, missed = _targets(r["result"])
        status = (" (by hand, not by `make bench`)" if r["status"].startswith("ok (not made by")
                  else "" if r["status"].startswith("ok") else f" ({r['status']})")
        lines.append(f"| {record} | {when}{status} | {met} | `python -m {r['command']}` |")
        if missed:
            missed_lines.append(f"- {r['name']}: {', '.join(missed)}")
    if missed_lines:
        lines += ["", "Targets not met (the record says by how much):", ""] + missed_lines
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=sorted(BENCHMARKS), help="run just these")
    ap.add_argument("--quick", action="store_true", help="tiny sizes for a smoke run; docs are not written")
    ap.add_argument("--out-dir", default=RESULTS, help="where the JSON results go")
    ap.add_argument("--page", action="store_true", help="run nothing: rewrite the page from the records there")
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    runs = [] if args.page else [run(name, args.quick, args.out_dir) for name in (args.only or BENCHMARKS)]
    if not args.quick:
        now = {r["name"]: r for r in runs}
        with open(PAGE, "w") as f:
            f.write(page([now.get(name) or earlier(name, args.out_dir) for name in BENCHMARKS] + others(args.out_dir),
                         machine()))
        print(f"wrote {os.path.relpath(PAGE, ROOT)}")
    failed = [r["name"] for r in runs if r["status"] != "ok"]
    if failed:
        print(f"benchmarks failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
