"""The dynamic pass: launch the script under mpirun with the bootstrap, then judge what the ranks saw.

    observed = run("train.py", ["--epochs", "1"], ranks=2, steps=3, timeout=600)

Each rank writes rank-N.json (observer.py); this module compares them: weights equal after the first
step (broadcast) and after the last (averaged gradients), first batches different (sharding), who
wrote files and when (checkpoints), the learning rate on each rank. A crash (or a hang) is a verdict on
the step whose code crashed (blame.py), never a run without one.
"""
import dataclasses
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple, Optional

from hvdkit.check import MISSING, OK, WRONG, Finding
from hvdkit.check.run.blame import script_line_in_log, statement_at, step_of_crash
from hvdkit.check.run.observer import RankRecord
from hvdkit.common.errors import HvdkitError
from hvdkit.scale import launch


class Hint(NamedTuple):
    pattern: str   # searched in the error text
    advice: str


HINTS = tuple(Hint(*h) for h in (
    (r"'Variable' object has no attribute 'ref'|has no attribute '_distributed_apply'",
     "Horovod's Keras API predates Keras 3: install hvdkit's patched Horovod (make setup)"),
    (r"'list' object is not callable", "Keras 3: optimizer.variables is a list, not a method: write opt.variables"),
    (r"(not recognized|unexpected keyword argument).*\blr\b", "Keras 3 optimizers take learning_rate=, not lr="),
    (r"optimizers.*legacy|legacy.*optimizers", "keras.optimizers.legacy is gone in Keras 3: use keras.optimizers.X"),
    (r"experimental_run_tf_function", "Keras 3's compile() has no experimental_run_tf_function: drop it"),
    (r"fit_generator", "Keras 3 removed fit_generator: pass the generator to fit()"),
    (r"ImageDataGenerator", "Keras 3 has no ImageDataGenerator: use keras.utils.image_dataset_from_directory and "
                            "preprocessing layers (keras.layers.RandomRotation, ...)"),
    (r"No module named '(\w+)", "the script imports a module this environment does not have: install it, or run "
                                 "where it is installed"),
    (r"ConfigProto|Session|set_session", "TF 1 API (ConfigProto, Session, K.set_session) is gone in TF 2: pin the GPU "
                                         "with tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')"),
))
TERM_GRACE = 15  # seconds the ranks get after SIGTERM to say where they were before they are killed


@dataclasses.dataclass
class Crash:
    """A rank's crash (or the launch's failure): the error, the script's line, and the step charged with it."""
    rank: Optional[int]
    error: str
    line: Optional[int] = None
    code: str = ""
    hint: Optional[str] = None
    step: Optional[int] = None
    why: str = ""


@dataclasses.dataclass
class RunResult:
    findings: dict            # {step: Finding} from what the ranks did
    summary: str
    crash: Optional[Crash]
    per_rank: dict            # {rank: {init, steps, lr, first_batch, writes, threads, seconds}}
    simulated: list           # what ran on the CPU or on synthetic data instead (said in the report)
    seconds: float = 0.0
    exit: Optional[int] = None
    timed_out: bool = False
    log_tail: str = ""
    out_dir: str = ""

    def as_dict(self):
        """The JSON report's "run" entry (the findings go into the step table)."""
        out = dataclasses.asdict(self)
        del out["findings"]
        return out


class RunSetupError(HvdkitError):
    """mpirun missing or the like: one line, before anything ran."""


def run(script, script_args, ranks=2, steps=3, timeout=600):
    out = tempfile.mkdtemp(prefix="hvdkit-check-")
    argv = [sys.executable, "-m", "hvdkit.check.run.bootstrap", script, *script_args]
    launched = execute(argv, ranks, {"HVDKIT_CHECK_OUT": out, "HVDKIT_CHECK_STEPS": str(steps)}, timeout)
    log, timed_out = launched.log, launched.timed_out
    with open(script) as f:
        source = f.read()
    result = judge(_read(out, ranks), ranks, steps, source, log=log, status=launched.status,
                   timed_out=timed_out, script=script)
    result.seconds, result.exit, result.timed_out = launched.seconds, launched.status, timed_out
    result.log_tail, result.out_dir = log[-3000:], out
    if timed_out:
        result.summary += f"; stopped after {timeout:.0f} s (a collective called on some ranks only?)"
    return result


class Launched(NamedTuple):
    log: str          # stdout and stderr of every rank, interleaved
    status: Optional[int]
    timed_out: bool
    seconds: float


def execute(argv, ranks, env_vars, timeout, mpi=True):
    """Run `argv` on `ranks` ranks under mpirun (mpi=False: one plain process) with `env_vars` passed to
    every rank and hvdkit's own tree first on PYTHONPATH; stopped by SIGTERM (then SIGKILL) after `timeout` s."""
    env = launch_env(ranks) if mpi else dict(os.environ)
    env.update(env_vars)
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))  # hvdkit's own tree
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    cmd = argv
    if mpi:
        try:
            cmd = launch.command(ranks, argv, env_names=(*env_vars, "PYTHONPATH"))
        except launch.LaunchError as exc:
            raise RunSetupError(str(exc)) from None
    t0 = time.time()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        log, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        # SIGTERM first: mpirun passes it on, and each rank's bootstrap records the line it was stuck at.
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            log, _ = proc.communicate(timeout=TERM_GRACE)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            log, _ = proc.communicate()
        timed_out = True
    except BaseException:  # Ctrl-C: the ranks run in their own session, so end them here
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    return Launched(log or "", proc.returncode, timed_out, round(time.time() - t0, 1))


def launch_env(ranks):
    env = launch.child_env(ranks)
    # A broadcast or allreduce called on some ranks only must end the job, not hang it.
    env.update(HOROVOD_STALL_CHECK_TIME_SECONDS="10", HOROVOD_STALL_SHUTDOWN_TIME_SECONDS="30")
    return env


def _read(out, ranks):
    paths = {r: os.path.join(out, f"rank-{r}.json") for r in range(ranks)}
    return {r: RankRecord.load(p) for r, p in paths.items() if os.path.exists(p)}


def _hint(text):
    return next((h.advice for h in HINTS if re.search(h.pattern, text)), None)


def _crash(recs, source, log, status, timed_out, script):
    """The first rank's crash, or the launch's own failure, charged to the step whose code crashed."""
    crashed = [(r, rec) for r, rec in sorted(recs.items()) if rec.crash]
    # A rank's own error first: the others then fail with "Horovod has been shut down" in their collective,
    # or get mpirun's SIGTERM when it ends the job (TimeLimit, also what our own time limit sends).
    crashed.sort(key=lambda item: any(w in item[1].crash["error"] for w in ("Horovod has been shut down",
                                                                             "TimeLimit")))
    r, rec = crashed[0] if crashed else (None, None)
    if rec is not None:
        crash = Crash(rank=r, error=rec.crash["error"], line=rec.crash["line"], code=rec.crash.get("code", ""))
    elif status or timed_out:
        line = script_line_in_log(log, script)
        error = "no rank reported before the time limit" if timed_out else f"the launch ended with status {status}"
        crash = Crash(rank=None, error=error, line=line, code=statement_at(source, line) if line else "")
    else:
        return None
    crash.hint = _hint(crash.error) or _hint(log)
    init_ran = any(x.init for x in recs.values())
    steps_done = max((x.steps for x in recs.values()), default=0)
    blame = step_of_crash(source, crash.line, init_ran, steps_done, crash.error)
    crash.step, crash.why = blame.step, blame.why
    return crash


def judge(recs, ranks, steps, source="", log="", status=0, timed_out=False, script=""):
    """RunResult from the ranks' records: a verdict per step they speak for, and the crash's step."""
    f = {}
    crash = _crash(recs, source, log, status, timed_out, script)
    stepped = {r: rec.steps for r, rec in recs.items()}
    summary = (f"{len(recs)} of {ranks} ranks reported; optimizer steps observed per rank: "
               f"{', '.join(f'{r}: {n}' for r, n in sorted(stepped.items())) or 'none'}")
    per_rank = {r: {k: getattr(rec, k) for k in ("init", "steps", "lr", "first_batch", "writes", "threads",
                                                 "seconds")}
                for r, rec in recs.items()}
    simulated = sorted({s for rec in recs.values() for s in rec.simulated})
    if simulated:
        summary += "; simulated on this machine: " + "; ".join(simulated)
    if recs:
        f[1] = _init(recs, crash)
        if len(recs) == ranks and min(stepped.values()) >= 1:
            f.update(_weights(recs, min(stepped.values())) if not any(r.adasum for r in recs.values()) else
                     _adasum(recs))
            f[3] = _first_batches(recs)
            f[4] = _lrs(recs)
        f[7] = _writes(recs, complete=len(recs) == ranks)
        if crash is None and max(stepped.values()) == 0:
            f[5] = Finding(MISSING, "the script ended without taking an optimizer step: training never ran",
                           source="run")
    if crash is not None and not (f.get(crash.step) and f[crash.step].verdict in (MISSING, WRONG)):
        where = f"line {crash.line}: " if crash.line else ""
        rank = f"rank {crash.rank}" if crash.rank is not None else "the launch"
        f[crash.step] = Finding(WRONG, f"{rank} crashed ({where}{crash.error}); {crash.why}", crash.line,
                                fix=crash.hint, source="run")
        f[crash.step].crash = True  # charged by where it crashed, not by what the run observed
    return RunResult(findings=f, summary=summary, crash=crash, per_rank=per_rank, simulated=simulated)


def _init(recs, crash):
    inits = [rec.init for rec in recs.values()]
    if crash and "has not been initialized" in crash.error:
        return Finding(WRONG, f"Horovod was used before hvd.init() ran (line {crash.line}: {crash.error})",
                       crash.line, source="run")
    if all(inits):
        return Finding(OK, f"hvd.init() ran on all {len(recs)} ranks", source="run")
    if not any(inits):
        if crash:  # an import error, a bad argument: the script never got as far as init
            return Finding(None, "the script stopped before hvd.init()", source="run")
        return Finding(MISSING, "hvd.init() never ran", source="run")
    return Finding(WRONG, "hvd.init() ran on some ranks only", source="run")


def _same(recs, table, k):
    vals = {getattr(rec, table).get(str(k)) for rec in recs.values()}
    return None if None in vals else len(vals) == 1


def _weights(recs, n):
    """Steps 6 and 5 from weight hashes: before step 1, after step 1, after the last observed step."""
    # "After step 1" is read just before step 2 (or when the script ends): Keras runs its callbacks
    # (Horovod's broadcast callback among them) after the step, and a custom loop may broadcast after it.
    after1 = _same(recs, "hash_before", 2)  # also written when the script ended after one step
    after1 = _same(recs, "hash_after", 1) if after1 is None else after1
    before1, last = _same(recs, "hash_before", 1), _same(recs, "hash_after", n)
    casts = sorted({b["call"] for rec in recs.values() for b in rec.broadcasts})
    out = {}
    if before1 or after1:
        when = "before the first step" if before1 else "by the end of the first step"
        seen = ", ".join(casts) or "no broadcast call seen"
        out[6] = Finding(OK, f"all ranks held identical weights {when} ({seen})", source="run")
        if n >= 2 and last is not None:
            out[5] = Finding(OK if last else WRONG, f"weights {'identical' if last else 'differ'} on all ranks after "
                             f"{n} steps" + ("" if last else ": gradients are not averaged"), source="run")
        elif before1 and after1 is not None:
            out[5] = Finding(OK if after1 else WRONG, f"weights {'identical' if after1 else 'differ'} after step 1",
                             source="run")
    elif after1 is False:
        verdict = MISSING if not casts else WRONG
        why = "no broadcast ran" if not casts else f"{', '.join(casts)} ran but did not make them equal"
        out[6] = Finding(verdict, f"ranks hold different weights after the first step: {why}", source="run")
    return out


def _adasum(recs):
    """Horovod's Adasum optimizer steps each parameter inside the backward pass and combines the ranks'
    deltas in a rank-dependent order: weights are neither still at a step boundary nor bitwise equal."""
    why = "Adasum (op=hvd.Adasum) moves weights inside the backward pass: weights not compared"
    before1 = _same(recs, "hash_before", 1)
    return {6: Finding(OK if before1 else None, ("all ranks held identical weights before the first step; "
                                                  if before1 else "") + why, source="run"),
            5: Finding(None, why, source="run")}


def _first_batches(recs):
    prints = [rec.first_batch for rec in recs.values()]
    if None in prints:
        return Finding(None, "first batch not observed", source="run")
    if len(set(prints)) == 1:
        return Finding(WRONG, "every rank trained on the same first batch: the data is not split", source="run")
    return Finding(None, "the ranks' first batches differ", source="run")


def _lrs(recs):
    lrs = [rec.lr for rec in recs.values()]
    if None in lrs:
        return Finding(None, "learning rate not observed", source="run")
    size = next(iter(recs.values())).hvd_size
    if len(set(lrs)) > 1:
        return Finding(WRONG, f"ranks step with different learning rates: {lrs}", source="run")
    return Finding(None, f"learning rate {lrs[0]:g} on every rank at hvd.size() = {size}", source="run")


def _writes(recs, complete):
    """Who saved what: several writers is wrong; rank 0 alone is ok only if every rank reported."""
    saves = {r: [w for w in rec.writes if w["kind"] != "open"] for r, rec in recs.items()}
    writers = sorted(r for r, ws in saves.items() if ws)
    if not writers:
        return Finding(None, "no checkpoint written during the observed steps", source="run")
    if not complete and len(writers) < 2:
        return Finding(None, f"rank {writers[0]} wrote a checkpoint; not every rank reported (a crash ended the "
                       "run), so others may have too", source="run")
    if writers != [0] and len(writers) > 1:
        return Finding(WRONG, f"ranks {writers} wrote checkpoints ({saves[writers[1]][0]['path']})", source="run")
    steps = [w["step"] for w in saves[writers[0]]]
    if len(steps) > 1 and len(set(steps)) == len(steps) and steps == list(range(steps[0], steps[0] + len(steps))):
        return Finding(WRONG, f"rank {writers[0]} wrote a checkpoint after every step ({len(steps)} in "
                       f"{len(steps)} steps)", source="run")
    return Finding(OK, f"only rank {writers[0]} wrote checkpoints ({len(steps)} during the observed steps)",
                   source="run")
