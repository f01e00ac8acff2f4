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
    "timeline": ("benchmarks.timeline_bench", [], ["--sizes", "1", "--repeats", "1"]),
    "check": ("benchmarks.check_bench", [], ["--quick"]),
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


# The page's "all numbers" table stays readable: longer lists and texts are cut there, whole in the record.
LIST_ITEMS = 10   # a list of objects longer than this: one row, its length and fields
LIST_DEPTH = 2    # a list of objects inside the items of this many lists: likewise
LIST_VALUES = 10  # a list of plain values longer than this: its first values and its length
CELL_CHARS = 160  # a longer text: its start and "…" (commands are shown whole: they reproduce the record)


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


def _scalars(obj, prefix="", depth=0):
    """Flatten a result to (dotted key, scalar) rows for the page; a long or deep list is one row saying
    what it holds."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _scalars(v, f"{prefix}{k}.", depth)
    elif isinstance(obj, list):
        if not obj:
            yield prefix[:-1], "(none)"
        elif all(not isinstance(v, (dict, list)) for v in obj):
            shown = ", ".join(str(v) for v in obj[:LIST_VALUES])
            yield prefix[:-1], shown + (f", … ({len(obj)} values: see the record)" if len(obj) > LIST_VALUES else "")
        elif len(obj) > LIST_ITEMS or depth >= LIST_DEPTH:
            fields = list(dict.fromkeys(k for v in obj if isinstance(v, dict) for k in v))
            count = f"{len(obj)} item" + ("s" if len(obj) != 1 else "")
            yield prefix[:-1], count + (f" ({', '.join(fields)})" if fields else "") + ": see the record"
        else:
            for i, v in enumerate(obj):
                yield from _scalars(v, f"{prefix}{i}.", depth + 1)
    else:
        yield prefix[:-1], obj


def _cell(value, whole=False):
    """A value as one Markdown table cell: no control characters (an MPI library string ends in NUL), no
    column breaks, no line breaks, at most CELL_CHARS characters unless whole."""
    text = "".join(c for c in str(value) if c.isprintable() or c == " ").strip()
    if len(text) > CELL_CHARS and not whole:
        text = text[:CELL_CHARS - 1].rstrip() + "…"
    return text.replace("|", "\\|")


def page(runs, info):
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`python -m benchmarks.run`); do not edit by hand. Each benchmark's own",
             "JSON in `benchmarks/results/` has every measurement, the machine as read when it ran (`machine`)",
             "and when (`measured_at`); the notes below are computed from those values. The \"all numbers\" tables",
             "cut long lists and texts short (the record has them whole).", "",
             "**Figures in README.md, docs/*.md and homework/README.md name their record.** Write a measured",
             "figure as a link whose text is the figure and whose target is the record and the key inside it:",
             "`[0.86](benchmarks/results/pi.json#per_core.65536.fraction)` (from docs/: `../benchmarks/...`).",
             "The key is dot-separated (list items by index) and may end in `*F` or `/F` to scale the value",
             "(`/1e6` for millions, `*100` for a percentage). The text starts with the number, a unit may follow",
             "(`3.6 s`, `1.85x`, `86%`). tests/test_docs_records.py checks that the record's value, rounded to the",
             "digits shown, is the number shown. A figure with no record does not go in those documents.", "",
             f"## Machine (read when this page was written, {datetime.date.today().isoformat()})", "",
             "| | |", "|---|---|"]
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
        lines += [f"| {k} | {_cell(v, whole='command' in k)} |" for k, v in _scalars(r["result"])
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
            f.write(page([now.get(name) or earlier(name, args.out_dir) for name in BENCHMARKS] + others(args.out_dir),
                         machine()))
        print(f"wrote {os.path.relpath(PAGE, ROOT)}")
    failed = [r["name"] for r in runs if r["status"] != "ok"]
    if failed:
        print(f"benchmarks failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
