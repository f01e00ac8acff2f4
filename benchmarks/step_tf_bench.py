"""Training step time at 2 ranks, 1 thread each: hvdkit.tensorflow vs hand-written horovod.tensorflow vs MWMS.

    python -m benchmarks.step_tf_bench --out benchmarks/results/step_tf.json
    python -m benchmarks.step_tf_bench --quick --out /tmp/step_tf.json     # smoke: CNN only, few steps

Each side is benchmarks/ranks/step_tf_rank.py launched with mpirun (hvdkit.common.launch) on the same
Keras 3 model, synthetic data, optimizer and per-rank batch, in a tf.function train step; MWMS
(tf.distribute.MultiWorkerMirroredStrategy) gets two localhost ports and runs one worker per rank with
global batch 2 x per-rank batch. Launches alternate sides (hvdkit, horovod, mwms, hvdkit, ...) for --reps
repetitions, so drifting machine load hits all sides alike. Step time is the slowest rank's wall time
for --steps steps after --warmup steps (tracing happens there), divided by --steps; medians and min-max
per side. Targets: hvdkit / hand-written <= 1.03 and hvdkit / MWMS <= 1.00, per model.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

from benchmarks.step_torch_bench import free_port, stats
from hvdkit.common import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANK = os.path.join("benchmarks", "ranks", "step_tf_rank.py")
OUT = os.path.join(ROOT, "benchmarks", "results", "step_tf.json")
SIDES = ("hvdkit", "horovod", "mwms")
MODELS = ("cnn", "mlp")
TARGETS = {"over_handwritten": 1.03, "over_mwms": 1.00}


def rank_args(side, model, args):
    return [RANK, "--side", side, "--model", model, "--steps", str(args.steps), "--warmup", str(args.warmup),
            "--batch", str(args.batch), "--threads", "1"]


def run_side(side, model, args, extra_env):
    """One mpirun launch of 2 ranks: both ranks' records merged (slowest rank's time) plus the command."""
    argv_rank = rank_args(side, model, args)
    if side == "mwms":
        ports = [free_port(), free_port()]
        while ports[1] == ports[0]:
            ports[1] = free_port()
        argv_rank = argv_rank + ["--ports", f"{ports[0]},{ports[1]}"]
    names = sorted(extra_env)
    argv = launch.command(2, [sys.executable, *argv_rank], env_names=names)
    env = launch.child_env(2, threads=1)
    env.update(extra_env)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    load = os.getloadavg()[0]
    proc = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=args.timeout)
    recs = [json.loads(l.split(" ", 1)[1]) for l in proc.stdout.splitlines() if l.startswith("STEP_JSON ")]
    if proc.returncode != 0 or len(recs) != 2:
        tail = (proc.stderr or proc.stdout)[-1500:].strip()
        raise RuntimeError(f"{side}/{model} failed (exit {proc.returncode}): {tail}")
    recs.sort(key=lambda r: r["rank"])
    checks = [r["weight_checksum"] for r in recs]
    prefix = "".join(f"{k}={v} " for k, v in sorted(extra_env.items()))
    return {"loadavg_1min_at_start": load, "step_s": max(r["step_s"] for r in recs), "step_s_per_rank": [r["step_s"] for r in recs],
            "cpu_s_per_step": max(r["cpu_s_per_step"] for r in recs),
            "warmup_s": max(r["warmup_s"] for r in recs), "loss": statistics.mean(r["loss"] for r in recs),
            "weight_checksum": checks[0], "ranks_agree": _close(checks),
            "tensors": recs[0]["tensors"], "parameters": recs[0]["parameters"],
            "batch_per_rank": recs[0]["batch_per_rank"], "threads": recs[0]["threads"],
            "command": prefix + "mpirun -n 2 python " + " ".join(shlex.quote(a) for a in argv_rank)}


def _close(values):
    return max(values) - min(values) <= 1e-6 * max(1.0, max(abs(v) for v in values))


def compare(model, args, env, sides):
    """The sides alternated, --reps times; per side the step times and the first run's record."""
    runs = {side: [] for side in sides}
    errors = {}
    for _ in range(args.reps):
        for side in sides:
            if side in errors:
                continue
            try:
                runs[side].append(run_side(side, model, args, env if side != "mwms" else {}))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                errors[side] = str(e)
                print(f"  {model} {side}: FAILED: {str(e)[-300:]}", flush=True)
                continue
            print(f"  {model} {side}: {runs[side][-1]['step_s'] * 1000:.2f} ms/step", flush=True)
    out = {"model": model, "steps": args.steps, "warmup": args.warmup, "reps": args.reps, "sides": {}}
    for side in sides:
        recs = runs[side]
        if not recs:
            out["sides"][side] = {"status": "failed", "error": errors[side]}
            continue
        first = recs[0]
        out["sides"][side] = {
            "status": "ok" if side not in errors else "failed after some runs", "error": errors.get(side),
            "step_ms": stats([r["step_s"] * 1000 for r in recs]),
            "cpu_ms_per_step": stats([r["cpu_s_per_step"] * 1000 for r in recs]),
            "first_steps_with_tracing_s": stats([r["warmup_s"] for r in recs]),
            "step_ms_per_rank": [[t * 1000 for t in r["step_s_per_rank"]] for r in recs],
            "loadavg_1min_at_start": [r["loadavg_1min_at_start"] for r in recs],
            **{k: first[k] for k in ("loss", "weight_checksum", "ranks_agree", "threads", "command")}}
        out.update({k: first[k] for k in ("tensors", "parameters", "batch_per_rank")})
    ok = {s: v["step_ms"]["median"] for s, v in out["sides"].items() if "step_ms" in v}
    if "hvdkit" in ok and "horovod" in ok:
        out["hvdkit_over_handwritten"] = ok["hvdkit"] / ok["horovod"]
    if "hvdkit" in ok and "mwms" in ok:
        out["hvdkit_over_mwms"] = ok["hvdkit"] / ok["mwms"]
        # hvdkit broadcasts before step 1, like MWMS's initial values: the same weights after training.
        out["hvdkit_mwms_same_weights"] = _close([out["sides"][s]["weight_checksum"] for s in ("hvdkit", "mwms")])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="smoke run: CNN only, 1 repetition, few steps, MWMS skipped (its start-up is slow)")
    p.add_argument("--reps", type=int, default=3, help="repetitions of each side (alternated)")
    p.add_argument("--steps", type=int, default=40, help="timed steps per launch")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps per launch (tracing included)")
    p.add_argument("--batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                   help="Horovod setting for both Horovod sides (default: none, Horovod's defaults)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of cnn,mlp")
    p.add_argument("--sides", default=",".join(SIDES), help="comma-separated subset of hvdkit,horovod,mwms")
    p.add_argument("--timeout", type=int, default=300, help="seconds per launch")
    p.add_argument("--out", default=OUT)
    args = p.parse_args(argv)
    sides = [s for s in args.sides.split(",") if s]
    models = [m for m in args.models.split(",") if m]
    skipped = {}
    if args.quick:
        args.reps, args.steps, args.warmup, models = 1, 5, 2, ["cnn"]
        if "mwms" in sides:
            sides.remove("mwms")
            skipped["mwms"] = "skipped in quick"
    env = dict(kv.split("=", 1) for kv in args.env)

    load_before = os.getloadavg()
    record = {"benchmark": "step_tf", "ranks": 2, "threads_per_rank": 1, "quick": args.quick,
              "command": "python -m benchmarks.step_tf_bench" + (" --quick" if args.quick else ""),
              "horovod_env": env, "skipped": skipped, "comparisons": {}}
    for model in models:
        c = record["comparisons"][model] = compare(model, args, env, sides)
        print(f"{model}: " + ", ".join(f"{s} {v['step_ms']['median']:.2f} ms" for s, v in c["sides"].items()
                                       if "step_ms" in v)
              + "".join(f"; {k} {c[k]:.3f}" for k in ("hvdkit_over_handwritten", "hvdkit_over_mwms") if k in c),
              flush=True)
    record["loadavg"] = {"before": load_before, "after": os.getloadavg()}
    record["targets"] = {}
    for model, c in record["comparisons"].items():
        for key in TARGETS:
            ratio = c.get(f"hvdkit_{key}")
            if ratio is not None:
                record["targets"][f"{model}_hvdkit_{key}"] = {"target": TARGETS[key], "measured": ratio,
                                                              "met": ratio <= TARGETS[key]}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=2)
    print(f"wrote {os.path.relpath(args.out)} (load average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after)")
    # MWMS may not run on a machine (its failure is a result); the Horovod sides must.
    failed = [f"{m}/{s}" for m, c in record["comparisons"].items() for s, v in c["sides"].items()
              if s != "mwms" and v["status"] != "ok"]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
