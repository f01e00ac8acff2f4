"""Training step time at 2 ranks, 1 thread each: hvdkit.tensorflow vs hand-written horovod.tensorflow vs MWMS.

    python -m benchmarks.step_tf_bench --out benchmarks/results/step_tf.json
    python -m benchmarks.step_tf_bench --quick --out /tmp/step_tf.json     # smoke: CNN only, few steps

Each side is benchmarks/ranks/step_tf_rank.py launched with mpirun (hvdkit.common.launch) on the same
Keras 3 model, synthetic data, optimizer and per-rank batch, in a tf.function train step; MWMS
(tf.distribute.MultiWorkerMirroredStrategy) gets two localhost ports and runs one worker per rank with
global batch 2 x per-rank batch; hvdkit_grouped is hvdkit with DistributedGradientTape(tape, groups=1).
Both Horovod sides run with HEADLINE_ENV (--env). Launches alternate sides (hvdkit, horovod, ...) for --reps
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
import tempfile

from benchmarks.step_torch_bench import free_port, stats
from hvdkit.common import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANK = os.path.join("benchmarks", "ranks", "step_tf_rank.py")
OUT = os.path.join(ROOT, "benchmarks", "results", "step_tf.json")
# hvdkit_grouped: hvdkit with DistributedGradientTape(tape, groups=1), all gradients in one collective.
SIDES = ("hvdkit", "horovod", "mwms", "hvdkit_grouped")
MODELS = ("cnn", "mlp")
STEPS = {"cnn": 40, "mlp": 200}  # timed steps per launch: a few seconds of each model
TARGETS = {"over_handwritten": 1.03, "over_mwms": 1.00}
# Both Horovod sides; the same headline setting as benchmarks/step_torch_bench.py (cycle time 1 ms -> 0.1 ms).
HEADLINE_ENV = {"HOROVOD_CYCLE_TIME": "0.1"}


def rank_args(side, model, args):
    groups = ["--groups", "1"] if side == "hvdkit_grouped" else []
    steps = args.steps or STEPS[model]
    return [RANK, "--side", side.replace("_grouped", ""), "--model", model, "--steps", str(steps),
            "--warmup", str(args.warmup), "--batch", str(args.batch), "--threads", "1", *groups]


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
    with tempfile.TemporaryDirectory() as tmp:
        argv = argv + ["--json-dir", tmp]
        proc = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=args.timeout)
        recs = []
        for name in sorted(os.listdir(tmp)):
            with open(os.path.join(tmp, name)) as f:
                recs.append(json.load(f))
    if proc.returncode != 0 or len(recs) != 2:
        tail = (proc.stderr or proc.stdout)[-1500:].strip()
        raise RuntimeError(f"{side}/{model} failed (exit {proc.returncode}): {tail}")
    recs.sort(key=lambda r: r["rank"])
    checks = [r["weight_checksum"] for r in recs]
    prefix = "".join(f"{k}={v} " for k, v in sorted(extra_env.items()))
    if "interleaved" in recs[0]:
        # Each step function's time on the slowest rank, from the alternating blocks.
        extra = {"interleaved_step_s": {name: max(r["interleaved"]["step_s"][name] for r in recs)
                                        for name in recs[0]["interleaved"]["step_s"]},
                 "interleaved_steps_per_block": recs[0]["interleaved"]["steps_per_block"]}
    else:
        extra = {}
    return {**extra,"loadavg_1min_at_start": load, "step_s": max(r["step_s"] for r in recs), "step_s_per_rank": [r["step_s"] for r in recs],
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
    out = {"model": model, "steps": args.steps or STEPS[model], "warmup": args.warmup, "reps": args.reps, "sides": {}}
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
        # CPU time per step is the busiest rank's own work: far less sensitive to other jobs than wall time.
        cpu = {s: out["sides"][s]["cpu_ms_per_step"]["median"] for s in ("hvdkit", "horovod")}
        out["hvdkit_over_handwritten_cpu_time"] = cpu["hvdkit"] / cpu["horovod"]
    for side in ("hvdkit", "hvdkit_grouped", "horovod"):
        if side in ok and "mwms" in ok:
            out[f"{side}_over_mwms"] = ok[side] / ok["mwms"]
    if "hvdkit" in ok and "hvdkit_grouped" in ok:
        out["hvdkit_grouped_over_hvdkit"] = ok["hvdkit_grouped"] / ok["hvdkit"]
    if "hvdkit" in ok and "mwms" in ok:
        # hvdkit broadcasts before step 1, like MWMS's initial values: the same weights after training.
        out["hvdkit_mwms_same_weights"] = _close([out["sides"][s]["weight_checksum"] for s in ("hvdkit", "mwms")])
    return out


def interleaved(model, args, env):
    """hvdkit's and the hand-written step alternated in blocks inside one launch, --interleaved-reps launches."""
    runs = []
    for _ in range(args.interleaved_reps):
        r = run_side("interleaved", model, args, env)
        runs.append(r)
        t = r["interleaved_step_s"]
        print(f"  {model} interleaved: hvdkit {t['hvdkit'] * 1000:.2f} ms, hand-written {t['horovod'] * 1000:.2f} ms "
              f"-> {t['hvdkit'] / t['horovod']:.3f}", flush=True)
    ratios = [r["interleaved_step_s"]["hvdkit"] / r["interleaved_step_s"]["horovod"] for r in runs]
    return {"hvdkit_step_ms": stats([r["interleaved_step_s"]["hvdkit"] * 1000 for r in runs]),
            "horovod_step_ms": stats([r["interleaved_step_s"]["horovod"] * 1000 for r in runs]),
            "hvdkit_over_handwritten": stats(ratios), "steps_per_block": runs[0]["interleaved_steps_per_block"],
            "ranks_agree": all(r["ranks_agree"] for r in runs), "command": runs[0]["command"],
            "loadavg_1min_at_start": [r["loadavg_1min_at_start"] for r in runs]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="smoke run: CNN only, 1 repetition, few steps, hvdkit and hand-written only")
    p.add_argument("--reps", type=int, default=3, help="repetitions of each side (alternated)")
    p.add_argument("--steps", type=int, default=None, help=f"timed steps per launch (default per model: {STEPS})")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps per launch (tracing included)")
    p.add_argument("--interleaved-reps", type=int, default=2,
                   help="launches with hvdkit's and the hand-written step alternated in one process (0: none)")
    p.add_argument("--batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--env", action="append", default=None, metavar="KEY=VALUE",
                   help=f"Horovod setting for the Horovod sides (default: {HEADLINE_ENV}; --env X= for none)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of cnn,mlp")
    p.add_argument("--sides", default=",".join(SIDES), help="comma-separated subset of " + ",".join(SIDES))
    p.add_argument("--timeout", type=int, default=300, help="seconds per launch")
    p.add_argument("--out", default=OUT)
    args = p.parse_args(argv)
    sides = [s for s in args.sides.split(",") if s]
    models = [m for m in args.models.split(",") if m]
    skipped = {}
    if args.quick:
        args.reps, args.steps, args.warmup, args.interleaved_reps, models = 1, 5, 2, 0, ["cnn"]
        for side in ("mwms", "hvdkit_grouped"):
            if side in sides:
                sides.remove(side)
                skipped[side] = "skipped in quick"
    env = HEADLINE_ENV if args.env is None else dict(kv.split("=", 1) for kv in args.env if kv.split("=", 1)[1])

    load_before = os.getloadavg()
    record = {"benchmark": "step_tf", "ranks": 2, "threads_per_rank": 1, "quick": args.quick,
              "command": "python -m benchmarks.step_tf_bench" + (" --quick" if args.quick else ""),
              "horovod_env": env, "skipped": skipped, "comparisons": {}}
    for model in models:
        c = record["comparisons"][model] = compare(model, args, env, sides)
        print(f"{model}: " + ", ".join(f"{s} {v['step_ms']['median']:.2f} ms" for s, v in c["sides"].items()
                                       if "step_ms" in v)
              + "".join(f"; {k} {c[k]:.3f}" for k in c if k.endswith(("_over_handwritten", "_over_mwms"))),
              flush=True)
        if args.interleaved_reps > 0:
            c["interleaved"] = interleaved(model, args, env)
        finish(record, load_before, args.out)  # after each model: a long run cut short keeps what it measured
    print(f"wrote {os.path.relpath(args.out)} (load average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after)")
    # MWMS may not run on a machine (its failure is a result); the Horovod sides must.
    failed = [f"{m}/{s}" for m, c in record["comparisons"].items() for s, v in c["sides"].items()
              if s != "mwms" and v["status"] != "ok"]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def finish(record, load_before, out):
    """Load averages, targets, and the JSON file."""
    record["loadavg"] = {"before": load_before, "after": os.getloadavg()}
    record["targets"] = {}
    for model, c in record["comparisons"].items():
        for key in TARGETS:
            ratio = c.get(f"hvdkit_{key}")
            if ratio is not None:
                record["targets"][f"{model}_hvdkit_{key}"] = {"target": TARGETS[key], "measured": ratio,
                                                              "met": ratio <= TARGETS[key]}
        if "interleaved" in c:  # the same ratio with both steps alternated inside one process
            ratio = c["interleaved"]["hvdkit_over_handwritten"]["median"]
            record["targets"][f"{model}_hvdkit_over_handwritten_interleaved"] = {
                "target": TARGETS["over_handwritten"], "measured": ratio, "met": ratio <= TARGETS["over_handwritten"]}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(record, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
