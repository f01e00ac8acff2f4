"""`make bench`: run every benchmark, write benchmarks/results/*.json and docs/BENCHMARKS.md.

    python -m benchmarks.run                 # all, full size (minutes; run on a quiet machine)
    python -m benchmarks.run --only pi       # one of them (the page keeps the others' earlier records)
    python -m benchmarks.run --page          # rewrite docs/BENCHMARKS.md from the records, run nothing
    python -m benchmarks.run --quick --out-dir /tmp/b   # smoke: tiny sizes, no docs written (make test)

Each benchmark is a module runnable on its own (`python -m benchmarks.pi_bench`), with its targets
recorded beside the measurements; this runner adds the machine description and the generated page.
"""
import argparse
import datetime
import importlib.metadata as md
import importlib.util
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
PAGE = os.path.join(ROOT, "docs", "BENCHMARKS.md")

# name: (module, full-size arguments, quick arguments). Every module takes --out FILE.
BENCHMARKS = {
    "step_torch": ("benchmarks.step_torch_bench", [], ["--quick"]),
    "step_tf": ("benchmarks.step_tf_bench", [], ["--quick"]),
    "allreduce": ("benchmarks.allreduce_bench", [], ["--quick"]),
    "pi": ("benchmarks.pi_bench", [], ["--loop-n", "20000", "--rate-n", "200000", "--scale-n", "400000", "--repeats", "1"]),
    "scaling": ("benchmarks.scaling_bench", [], ["--quick"]),
    "timeline": ("benchmarks.timeline_bench", [], ["--sizes", "1", "--repeats", "1"]),
    "fuzz": ("benchmarks.fuzz_readers", ["--seconds", "40"], ["--seconds", "1"]),
    "check": ("benchmarks.check_bench", [], ["--quick"]),
    "upstream": ("benchmarks.upstream", [], ["--quick"]),
}


def machine():
    versions = {}
    for name in ("torch", "tensorflow-cpu", "keras", "horovod", "mpi4py", "numpy"):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            versions[name] = None
    mem = None
    if os.path.exists("/proc/meminfo"):
        with open("/proc/meminfo") as f:
            mem = round(int(f.readline().split()[1]) / 2**20, 1)
    cpu = platform.processor() or platform.machine()
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            names = [l.split(":", 1)[1].strip() for l in f if l.startswith("model name")]
        cpu = names[0] if names else cpu
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem, "python": platform.python_version(),
            "os": platform.platform(), "versions": versions}


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
    # The page says when each record was measured; a file's mtime does not survive a git clone.
    result["measured_at"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    return {"name": name, "command": " ".join(argv[2:]), "status": "ok", "result": result}


def earlier(name, out_dir):
    """The record a previous run left for a benchmark not run now, so the page always covers them all."""
    path = os.path.join(out_dir, f"{name}.json")
    if not os.path.exists(path):
        return {"name": name, "command": BENCHMARKS[name][0], "status": "not run yet"}
    with open(path) as f:
        result = json.load(f)
    when = result.get("measured_at", "date not recorded: see the file's git log")
    return {"name": name, "command": result.get("command", BENCHMARKS[name][0]).removeprefix("python -m "),
            "status": f"ok (an earlier run, measured {when})", "result": result}


def _scalars(obj, prefix=""):
    """Flatten a result to (dotted key, scalar) rows for the page."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _scalars(v, f"{prefix}{k}.")
    elif isinstance(obj, list):
        if all(not isinstance(v, (dict, list)) for v in obj):
            yield prefix[:-1], ", ".join(str(v) for v in obj)
        else:
            for i, v in enumerate(obj):
                yield from _scalars(v, f"{prefix}{i}.")
    else:
        yield prefix[:-1], obj


def _cell(value):
    """A value as one Markdown table cell: no control characters (an MPI library string ends in NUL), no
    column breaks, no line breaks."""
    text = "".join(c for c in str(value) if c.isprintable() or c == " ")
    return text.replace("|", "\\|").strip()


def page(runs, info):
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`python -m benchmarks.run`); do not edit by hand. Numbers are from the",
             f"machine below on {datetime.date.today().isoformat()}; each benchmark's own JSON in",
             "`benchmarks/results/` has every measurement.", "",
             "## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in info.items() if k != "versions"]
    lines += [f"| {k} | {v} |" for k, v in info["versions"].items()]
    for r in runs:
        lines += ["", f"## {r['name']}", "", f"Command: `python -m {r['command']}` — {r['status']}", ""]
        if "result" not in r:
            continue
        notes = r["result"].get("notes")
        if notes:
            lines += [f"- {n}" for n in ([notes] if isinstance(notes, str) else notes)] + [""]
        targets = r["result"].get("targets")
        if isinstance(targets, dict):
            lines += ["| target | wanted | measured | met |", "|---|---|---|---|"]
            lines += [f"| {k} | {v.get('target')} | {v.get('measured')} | {v.get('met')} |"
                      for k, v in targets.items() if isinstance(v, dict)]
            lines.append("")
        lines += ["<details><summary>all numbers</summary>", "", "| key | value |", "|---|---|"]
        lines += [f"| {k} | {_cell(v)} |" for k, v in _scalars(r["result"])
                  if k.split(".")[0] not in ("targets", "notes")]
        lines += ["", "</details>"]
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
            f.write(page([now.get(name) or earlier(name, args.out_dir) for name in BENCHMARKS], machine()))
        print(f"wrote {os.path.relpath(PAGE, ROOT)}")
    failed = [r["name"] for r in runs if r["status"] != "ok"]
    if failed:
        print(f"benchmarks failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
