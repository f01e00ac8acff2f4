"""`hvdkit scale`: run a program at several rank counts and tabulate the throughput it measured.

    hvdkit scale -n 1,2,4,8 -- python examples/resnet34/train_hvd.py --image-size 64 --batch-size 8

Each run is launched with hvdkit.scale.launch (the same command line and environment as the tests)
and told where to write its run record by the environment variable HVDKIT_RECORD: a program that times
its steps with hvdkit's Meter or hk.progress writes it with no line of its own (docs/scale.md), as does any
program that writes the record. With --strong each run gets its share of the global batch on the
command line (the program's --batch-size, rewritten; --batch-flag names another option) and in
HVDKIT_GLOBAL_BATCH_SIZE. A program that writes no record (a plain Horovod script) is timed from outside:
whole launches per second, said in one line. Records and logs are staged and moved into --out only when
every run succeeded, so a failed sweep leaves the previous results in place.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from hvdkit.cli import UsageError
from hvdkit.common.errors import FAILURE_STATUS, HvdkitError
from hvdkit.scale import launch
from hvdkit.scale import record as run_record
from hvdkit.scale import scaling
from hvdkit.common.context import usable_cores


class SweepError(HvdkitError, RuntimeError):
    """A run failed: printed as one line, exit status 1 (its log is kept)."""
    status = FAILURE_STATUS


def register(subparsers):
    p = subparsers.add_parser(
        "scale", help="run a program at several rank counts; table, CSV and plots of its throughput",
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("-n", "--ranks", default="1,2,4,8", help="rank counts, comma-separated")
    p.add_argument("--launcher", default="mpirun", help=f"one of {', '.join(launch.LAUNCHERS)}")
    p.add_argument("--strong", action="store_true",
                   help="strong scaling: keep the global batch fixed, instead of the per-rank batch (weak scaling)")
    p.add_argument("--global-batch-size", type=int, default=None,
                   help="with --strong: the global batch; default: the global batch of the smallest run")
    p.add_argument("--batch-flag", default="--batch-size",
                   help="with --strong: the program's per-rank batch option, set to global batch / ranks each run "
                        "(another name: --batch-flag=--bs)")
    p.add_argument("--out", default=os.path.join("results", "scale"), help="directory for the table, CSV, plots")
    p.add_argument("--launcher-args", default="", help="extra launcher arguments, one string (e.g. '--bind-to none')")
    p.add_argument("--timeout", type=float, default=None, help="seconds allowed per run")
    p.add_argument("--title", default=None, help="plot title (default: the program and its arguments)")
    p.add_argument("-v", "--verbose", action="store_true", help="show each run's output as it runs")
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- then the program and its arguments")
    p.set_defaults(run=run)


def parse_ranks(text):
    try:
        counts = [int(x) for x in str(text).split(",")]
    except ValueError:
        counts = []
    if not counts or any(n < 1 for n in counts) or len(set(counts)) != len(counts):
        raise UsageError(f"bad -n {text!r}: give distinct rank counts >= 1, comma-separated, e.g. -n 1,2,4,8")
    return sorted(counts)


def _check(args):
    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("no program to run: add -- and the command, e.g. -- python examples/resnet34/train_hvd.py")
    counts = parse_ranks(args.ranks)
    if args.launcher not in launch.LAUNCHERS:
        raise UsageError(f"unknown launcher {args.launcher!r}: use one of {', '.join(launch.LAUNCHERS)}")
    if args.global_batch_size is not None and not args.strong:
        raise UsageError("--global-batch-size is for strong scaling: add --strong, or drop it for weak scaling")
    batch = _batch_arg(command, args.batch_flag) if args.strong else None
    args.global_batch = args.global_batch_size
    if batch is not None and args.global_batch is None:
        args.global_batch = batch * counts[0]  # the smallest run runs with the program's own batch
    if args.global_batch is not None:
        _check_divides(args.global_batch, counts)
    script = next((a for a in command[1:2] if a.endswith(".py")), None)
    if script and not os.path.isfile(script):
        raise UsageError(f"{script}: no such file (run from the directory the path is relative to)")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} exists and is not a directory")
    try:
        extra = shlex.split(args.launcher_args)
        launch.command(counts[0], command, args.launcher, extra=extra)  # finds the launcher before any run
    except launch.LaunchError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        raise UsageError(f"--launcher-args: {exc}") from None
    return command, counts, extra


def _batch_arg(command, flag):
    """The value of `flag N` or `flag=N` in the program's arguments (an integer >= 1), or None if absent."""
    for i, arg in enumerate(command):
        value = command[i + 1] if arg == flag and i + 1 < len(command) else \
            arg.split("=", 1)[1] if arg.startswith(flag + "=") else None
        if value is not None:
            if not value.isdigit() or int(value) < 1:
                raise UsageError(f"{flag} {value!r}: --strong needs the per-rank batch as a whole number >= 1")
            return int(value)
    return None


def _with_batch(command, flag, batch):
    """The command with its `flag` set to `batch` (per rank)."""
    out = list(command)
    for i, arg in enumerate(out):
        if arg == flag:
            out[i + 1] = str(batch)
        elif arg.startswith(flag + "="):
            out[i] = f"{flag}={batch}"
    return out


def others_running(samples=5, interval=0.1):
    """Processes running on this machine besides this one, averaged over half a second (Linux; else None).

    The kernel's instantaneous count of runnable tasks, not the 1-minute load average, which still
    carries the previous run's ranks.
    """
    counts = []
    for i in range(samples):
        try:
            with open("/proc/loadavg") as f:
                counts.append(int(f.read().split()[3].split("/")[0]) - 1)
        except (OSError, ValueError, IndexError):
            return None
        if i < samples - 1:
            time.sleep(interval)
    return sum(counts) / len(counts)


def _check_divides(global_batch, counts):
    if global_batch < 1:
        raise UsageError(f"--global-batch-size must be >= 1, got {global_batch}")
    bad = [n for n in counts if global_batch % n]
    if bad:
        raise UsageError(f"global batch {global_batch} does not split evenly over {bad[0]} ranks: "
                         f"use a multiple of every rank count in -n")


def _launch(n, command, args, extra, stage, global_batch):
    """Run at n ranks; returns (record or None if the program wrote none, seconds, processes busy beforehand).
    Raises UsageError / SweepError (one line)."""
    path = os.path.join(stage, "records", f"ranks-{n}.json")
    log_path = os.path.join(stage, "logs", f"ranks-{n}.log")
    env = launch.child_env(n)
    env[run_record.ENV] = path
    names = [run_record.ENV]
    if global_batch is not None:
        env[run_record.GLOBAL_BATCH_ENV] = str(global_batch)
        names.append(run_record.GLOBAL_BATCH_ENV)
    # `python` in the command means the interpreter hvdkit runs in (its venv), as in the tests.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    threads = env["OMP_NUM_THREADS"]  # the user's, if set, else hvdkit's share of the cores
    argv = launch.command(n, command, args.launcher, extra=extra, env_names=names,
                          threads=int(threads) if threads.isdigit() else None)
    busy = others_running()
    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        log.write("$ " + shlex.join(argv) + "\n")
        log.flush()
        try:
            proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except OSError as exc:
            raise UsageError(f"cannot start {argv[0]}: {exc.strerror}") from None
        try:
            for line in proc.stdout:
                log.write(line)
                if args.verbose:
                    sys.stdout.write(line)
            code = proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise SweepError(f"the {n}-rank run took more than --timeout {args.timeout:g} s; log: {log_path}") from None
    elapsed = time.perf_counter() - t0
    if code != 0:
        _check_slots(n, log_path)
        raise SweepError(f"the {n}-rank run failed (exit {code}): {_last_line(log_path)}; log: {log_path}")
    if not os.path.exists(path):
        print(f"ranks {n:>3}: {elapsed:.1f} s, no run record", flush=True)
        return None, elapsed, busy
    try:
        rec = run_record.read(path)
    except run_record.RecordError as exc:
        raise UsageError(str(exc)) from None
    if rec["ranks"] != n:
        raise UsageError(f"the {n}-rank run's record says {rec['ranks']} ranks: the launcher did not start "
                         f"{n} ranks of one job (is the program built against this MPI?); log: {log_path}")
    print(f"ranks {n:>3}: {rec['total_rate']:.2f} {rec['unit']}/s total  ({elapsed:.0f} s)", flush=True)
    return rec, elapsed, busy


def _wall_record(n, seconds, args, command, cores):
    """A run record from outside, for a program that wrote none: whole launches per second.

    The job's work is one run's per rank (weak scaling: n of them) or one run's in all (strong), so the
    speed-up and the efficiency compare wall times; per-rank rates are the total split evenly (unknown).
    """
    total = (1.0 if args.strong else float(n)) / seconds
    try:
        batch = _batch_arg(command, args.batch_flag)
    except UsageError:  # weak scaling: the batch is only shown, and this one is not a number
        batch = None
    fields = dict(wall_seconds=seconds, batch_size=batch, global_batch_size=batch * n if batch else None)
    if args.launcher != "srun":  # a local launch: hvdkit knows where the ranks ran
        threads = launch.child_env(n)["OMP_NUM_THREADS"]
        fields.update(hosts=1, local_size=n, cpu_count=cores, oversubscribed=n > cores,
                      threads_per_rank=int(threads) if threads.isdigit() else None)
    return run_record.build(n, [total / n] * n, total, unit="runs", **fields)


def _check_slots(n, log_path):
    """OpenMPI's multi-paragraph "not enough slots" notice, as one line that says what to change."""
    with open(log_path) as f:
        text = " ".join(f.read().split())
    if "not enough slots available" in text:
        raise UsageError(f"{n} ranks are more than the launcher's slots (cores or --host/hostfile slots): "
                         f"allow oversubscription with --launcher-args '--oversubscribe', give more slots, or "
                         f"use fewer ranks in -n; log: {log_path}")


def _last_line(path):
    """The line of a run's log most likely to say what went wrong (OpenMPI's own framed notices skipped)."""
    lines, framed = [], False
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and set(line) == {"-"}:
                framed = not framed
            elif line and not framed and not line.startswith("$ "):
                lines.append(line)
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["(no output)"])[-1][:300]


def _sweep(args, command, counts, extra, stage):
    global_batch = args.global_batch if args.strong else None
    has_flag = args.strong and _batch_arg(command, args.batch_flag) is not None
    records, seconds, busy = {}, {}, {}
    for n in counts:
        if args.strong and global_batch is not None:
            _check_divides(global_batch, [n])
        argv = _with_batch(command, args.batch_flag, global_batch // n) if has_flag else command
        records[n], seconds[n], busy[n] = _launch(n, argv, args, extra, stage, global_batch)
        rec = records[n]
        if args.strong and rec is not None:
            got = rec.get("global_batch_size")
            if got is None:
                raise UsageError("strong scaling needs global_batch_size in the run records (docs/scale.md)")
            if global_batch is None:
                global_batch = got
            elif got != global_batch:
                raise UsageError(f"the {n}-rank run used global batch {got}, not {global_batch}: the program must "
                                 f"take its per-rank batch from {args.batch_flag} or "
                                 f"${run_record.GLOBAL_BATCH_ENV}")
    missing = [n for n in counts if records[n] is None]
    if missing and len(missing) < len(counts):
        raise UsageError(f"the {missing[0]}-rank run wrote no run record, the "
                         f"{next(n for n in counts if records[n])}-rank run did: sweep one program")
    if missing and args.strong and not has_flag:
        raise UsageError(f"strong scaling of a program that writes no run record needs its per-rank batch on "
                         f"the command line: add {args.batch_flag} N (or name the option with --batch-flag)")
    return records, seconds, busy


def run(args):
    command, counts, extra = _check(args)
    cores = usable_cores()
    os.makedirs(args.out, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=".sweep-", dir=args.out)
    os.makedirs(os.path.join(stage, "records"))
    os.makedirs(os.path.join(stage, "logs"))
    mode = "strong" if args.strong else "weak"
    print(f"hvdkit scale: {mode} scaling over {','.join(map(str, counts))} ranks with {args.launcher} "
          f"({cores} cores here): {shlex.join(command)}", flush=True)
    try:
        by_ranks, seconds, busy = _sweep(args, command, counts, extra, stage)
    except SweepError as exc:
        print(f"hvdkit scale: error: {exc}", file=sys.stderr)
        return 1
    timed_outside = all(r is None for r in by_ranks.values())
    if timed_outside:
        command_n = {n: _with_batch(command, args.batch_flag, args.global_batch // n) if args.global_batch
                     else command for n in counts}
        for n in counts:
            rec = _wall_record(n, seconds[n], args, command_n[n], cores)
            by_ranks[n] = rec
            run_record.write(os.path.join(stage, "records", f"ranks-{n}.json"), rec)
    records = [by_ranks[n] for n in counts]
    units = {r["unit"] for r in records}
    if len(units) > 1:
        raise UsageError(f"the runs count different units ({', '.join(sorted(units))}): sweep one program")
    for sub in ("records", "logs"):
        dest = os.path.join(args.out, sub)
        os.makedirs(dest, exist_ok=True)
        for name in os.listdir(os.path.join(stage, sub)):
            os.replace(os.path.join(stage, sub, name), os.path.join(dest, name))
    shutil.rmtree(stage, ignore_errors=True)
    # Relative to --out, so a results directory can be moved or committed whole.
    paths = {r["ranks"]: os.path.join("records", f"ranks-{r['ranks']}.json") for r in records}
    write_outputs(args, command, records, paths, busy, mode, cores, timed_outside)
    return 0


def outside_note(command):
    """The one line that says what a sweep of a program without run records measured, and what it could not."""
    program = next((a for a in command if a.endswith(".py")), command[0])
    return (f"note: {os.path.basename(program)} wrote no run record (its steps do not run through hvdkit's Meter "
            f"or hk.progress): rates are whole launches per second, start-up included; per-rank rates and step "
            f"times cannot be measured there")


def write_outputs(args, command, records, paths, busy, mode, cores, timed_outside=False):
    local = args.launcher != "srun"
    table_rows = scaling.rows(records, cores if local else None, paths, busy)
    unit = records[0]["unit"]
    text = scaling.table(table_rows, unit, cores if local else None)
    if timed_outside:
        text += "\n" + outside_note(command)
    _warn_mixed(records, mode)
    shared = [r["ranks"] for r in table_rows if (r["busy_before"] or 0) >= max(1, cores / 2)]
    header = f"{mode} scaling, {args.launcher}, {cores} cores: {shlex.join(command)}"
    print()
    print(text)
    if shared and local:
        print(f"note: other processes were running when the {', '.join(map(str, shared))}-rank run(s) started "
              f"(busy_before in scale.csv): they shared the {cores} cores, so those rates are low")
    out = args.out
    with open(os.path.join(out, "scale.txt"), "w") as f:
        f.write(header + "\n\n" + text + "\n")
    with open(os.path.join(out, "scale.csv"), "w") as f:
        f.write(scaling.to_csv(table_rows))
    with open(os.path.join(out, "scale.json"), "w") as f:
        json.dump({"command": command, "launcher": args.launcher, "mode": mode, "cores": cores, "unit": unit,
                   "rows": table_rows}, f, indent=1)
    title = args.title or _title(command, records[0], mode)
    plots = [os.path.join(out, "scale.png"), os.path.join(out, "scale.pdf")]
    scaling.plot(table_rows, plots, title, unit, mode)
    print(f"\nwrote {os.path.join(out, 'scale.txt')}, scale.csv, scale.json, scale.png, scale.pdf; "
          f"records and logs in {os.path.join(out, 'records')}, {os.path.join(out, 'logs')}")


def _warn_mixed(records, mode):
    key = "batch_size" if mode == "weak" else "global_batch_size"
    values = {r.get(key) for r in records if r.get(key) is not None}
    if len(values) > 1:
        print(f"warning: {mode} scaling, but the runs used different {key.replace('_', ' ')}s "
              f"({', '.join(map(str, sorted(values)))})", file=sys.stderr)


def _title(command, rec, mode):
    program = rec.get("program") or next((a for a in command if a.endswith(".py")), command[0])
    bits = [os.path.basename(program)]
    for key in ("framework", "model"):
        if rec.get(key):
            bits.append(str(rec[key]))
    if rec.get("image_size"):
        bits.append(f"{rec['image_size']}px")
    batch = rec.get("global_batch_size") if mode == "strong" else rec.get("batch_size")
    if batch:
        bits.append(f"{'global' if mode == 'strong' else 'per-rank'} batch {batch}")
    return f"{mode} scaling: " + ", ".join(bits)
