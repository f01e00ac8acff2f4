"""`hvdkit check`, static pass, on the held-out sets: recall and precision per set and pooled.

    python -m benchmarks.check_heldout_bench
    python -m benchmarks.check_heldout_bench --sets a,j --out /tmp/h.json   # some sets only (make test's smoke)

The sets (tests/check_heldout/<set>/<torch|tf>/, README.md there) are Horovod scripts written from scratch
for hvdkit in varied styles, each labelled step by step by hand before the checker was run on it. Scored as
the check corpus is (benchmarks/check_bench.py): a fault is a step labelled missing or wrong, a flag a verdict
missing or wrong, per step over all scripts, steps labelled `applicable: false` skipped. Every miss and false
alarm is listed. The README says which sets later served as development data (rules were fixed on them) and
what each set scored when it was first run, before any fix; those first scores are the held-out measure.
Sets j to p are projects (`projects/projects.json`, the scripts inside their own multi-module
repositories): they are scored twice, flat and inside their projects (with the crash finding), as the check
corpus is. "pooled" adds up the single-file sets a to i, the ones the targets apply to; "pooled_projects"
adds up the project sets read inside their projects.
Writes benchmarks/results/check_heldout.json.
"""
import argparse
import os
import sys
import time

from benchmarks import harness
from benchmarks.check_bench import CORPUS_TARGETS, _projects, corpus_shortfalls, ratio, score_corpus

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = os.path.join(ROOT, "tests", "check_heldout")
OUT = os.path.join(ROOT, "benchmarks", "results", "check_heldout.json")
COUNTS = ("faults", "tp", "fn", "fp")


def score_sets(root=SETS, only=None):
    """{"sets": {set: score_corpus(set)}, "projects": {set: score_corpus(set, projects=True)} for the sets
    that are projects, "pooled": the single-file sets' per-step counts added, "pooled_projects": the project
    sets' (read inside their projects) added}. `only`: the names of the sets to score (every set when None)."""
    names = set_names(root)
    unknown = sorted(set(only or ()) - set(names))
    if unknown:
        raise SystemExit(f"no held-out set {', '.join(unknown)} in {root}: choose from {', '.join(names)}")
    names = [name for name in names if only is None or name in only]
    sets = {name: score_corpus(os.path.join(root, name)) for name in names}
    projects = {name: score_corpus(os.path.join(root, name), projects=True) for name in names
                if _projects(os.path.join(root, name))}
    return {"sets": sets, "projects": projects,
            "pooled": pool(s["all"] for name, s in sets.items() if name not in projects),
            "pooled_projects": pool(s["all"] for s in projects.values())}


def set_names(root=SETS):
    """The held-out sets under `root`, in name order: its folders, not hidden ones."""
    return [name for name in sorted(os.listdir(root))
            if os.path.isdir(os.path.join(root, name)) and not name.startswith((".", "_"))]


def pool(scores):
    """Add per-step counts over several score_corpus()["all"] results; recall and precision from the sums;
    the misses and false alarms of all of them."""
    scores = list(scores)
    per_step = {}
    for n in map(str, range(1, 9)):
        c = {k: sum(s["per_step"][n][k] for s in scores) for k in COUNTS}
        c["recall"], c["precision"] = ratio(c["tp"], c["faults"]), ratio(c["tp"], c["tp"] + c["fp"])
        per_step[n] = c
    tot = {k: sum(c[k] for c in per_step.values()) for k in COUNTS}
    tot["recall"], tot["precision"] = ratio(tot["tp"], tot["faults"]), ratio(tot["tp"], tot["tp"] + tot["fp"])
    crash = {k: sum(s["crash"][k] for s in scores if "crash" in s) for k in ("fatal", "found", "reported")}
    crash["recall"], crash["precision"] = ratio(crash["found"], crash["fatal"]), ratio(crash["found"],
                                                                                      crash["reported"])
    return {"scripts": sum(s["scripts"] for s in scores), "per_step": per_step, "overall": tot, "crash": crash,
            "misses": [m for s in scores for m in s["misses"]],
            "false_alarms": [m for s in scores for m in s["false_alarms"]]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--sets", help="comma-separated set names to score (default: every set)")
    args = ap.parse_args(argv)
    only = args.sets.split(",") if args.sets else None
    t0, load_before = time.time(), harness.loadavg()
    command = "python -m benchmarks.check_heldout_bench" + (f" --sets {args.sets}" if args.sets else "")
    record = {"command": command, **score_sets(only=only)}
    short = corpus_shortfalls(record["pooled"])
    record["targets"] = {"pooled": {"target": CORPUS_TARGETS, "measured": {
        k: record["pooled"]["overall"][k] for k in ("recall", "precision")}, "shortfalls": short, "met": not short}}
    record["notes"] = ["Scores of the checker as it is now. Sets that rules were later fixed on are development "
                       "data by now; tests/check_heldout/README.md gives each set's first score, taken before "
                       "any fix."]
    record["seconds"] = round(time.time() - t0, 1)
    harness.write(record, args.out, load_before)
    for key in ("pooled", "pooled_projects"):
        pooled = record[key]["overall"]
        print(f"{key}: {record[key]['scripts']} scripts, {pooled['faults']} faults, recall {pooled['recall']}, "
              f"precision {pooled['precision']}")
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
