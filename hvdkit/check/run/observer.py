"""What one rank saw while `hvdkit check --run` observed it: framework-free state and its JSON file.

The framework hooks (hooks_torch.py, hooks_tf.py) call into one Observer: init ran, a broadcast ran,
an optimizer step is about to run / has run (with a hash of the weights it updates), a file was written.
After `steps` optimizer steps it writes the rank's JSON and stops the script with StopRun, which is
a BaseException so that the script's own `except Exception` cannot swallow it.
"""
import dataclasses
import hashlib
import json
import linecache
import os
import re
import sys
import time
import traceback
from typing import Optional

from hvdkit.common import files


class StopRun(BaseException):
    """Raised after the last observed step: the bootstrap catches it and ends the rank cleanly."""


class TimeLimit(BaseException):
    """Raised in a rank by SIGTERM at the run's time limit: recorded as a crash at the line it was running."""


def digest(chunks):
    h = hashlib.sha1()
    for c in chunks:
        h.update(c)
    return h.hexdigest()[:16]


@dataclasses.dataclass
class RankRecord:
    """What one rank saw; written as rank-N.json and read back by dynamic.py."""
    rank: int
    size_env: int
    init: bool = False
    hvd_size: Optional[int] = None
    broadcasts: list = dataclasses.field(default_factory=list)   # {"call", "step", "line"}
    steps: int = 0                                                # optimizer steps completed
    hash_before: dict = dataclasses.field(default_factory=dict)   # "k" -> weights hash just before step k
    hash_after: dict = dataclasses.field(default_factory=dict)    # "k" -> weights hash just after step k
    lr: Optional[float] = None
    first_batch: Optional[str] = None
    writes: list = dataclasses.field(default_factory=list)       # {"kind", "path", "step", "line"}
    threads: Optional[int] = None
    crash: Optional[dict] = None                                  # {"error", "line", "code"}
    exit: object = None
    finished: bool = False
    simulated: list = dataclasses.field(default_factory=list)    # what ran on CPU or synthetic data instead
    adasum: bool = False                                          # Horovod's Adasum optimizer: weights move mid-step
    seconds: Optional[float] = None

    @classmethod
    def load(cls, path):
        with open(path) as f:
            data = json.load(f)
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def local_size(obs):
    """Ranks on this node (OpenMPI says; else all of them): the number of GPUs a simulation offers."""
    value = os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", "")
    return int(value) if value.isdigit() else obs.size


class Observer:
    def __init__(self, script, steps, out_dir, rank, size):
        self.script, self.steps, self.out_dir = os.path.abspath(script), steps, out_dir
        self.rank, self.size = rank, size
        self.t0 = time.time()
        self.rec = RankRecord(rank=rank, size_env=size)
        self.weights = None   # callable -> list of bytes chunks (set by the framework hooks)
        self.params = self.optimizers = None  # callables -> the trained tensors, the optimizers (likewise)
        self.in_broadcast = False  # Horovod steps the optimizer inside broadcast_optimizer_state

    # --- events from the hooks ---------------------------------------------------------------
    def on_init(self, size):
        self.rec.init, self.rec.hvd_size = True, size

    def on_broadcast(self, what):
        last = self.rec.broadcasts[-1] if self.rec.broadcasts else None
        if last and last["call"] == what and last["step"] == self.rec.steps:
            return  # one record per function and step (hvdkit broadcasts variable by variable)
        self.rec.broadcasts.append({"call": what, "step": self.rec.steps, "line": self.script_line()})

    def broadcast_seen(self):
        return bool(self.rec.broadcasts)

    def before_step(self, lr=None):
        """Called just before an optimizer step (torch) or a call that may step (TF)."""
        k = self.rec.steps + 1
        chunks = self.weights() if self.weights is not None else None
        if chunks:  # no weights yet (a Keras model built by its first call): nothing to compare
            self.rec.hash_before[str(k)] = digest(chunks)
        if lr is not None and self.rec.lr is None:
            self.rec.lr = lr

    def after_step(self, count=1):
        """`count` optimizer steps just completed; stops the script after the last observed one."""
        self.rec.steps += count
        chunks = self.weights() if self.weights is not None else None
        if chunks:
            self.rec.hash_after[str(self.rec.steps)] = digest(chunks)
        if self.rec.steps >= self.steps:
            self.write()
            raise StopRun()

    def on_finish(self):
        """The script ended by itself: the weights now count as 'before the next step' (Keras callbacks, a
        broadcast after the last step, have run)."""
        chunks = self.weights() if self.weights is not None else None
        if chunks:
            self.rec.hash_before[str(self.rec.steps + 1)] = digest(chunks)
        self.rec.finished = True

    def on_first_batch(self, chunks):
        if self.rec.first_batch is None and self.rec.steps == 0:
            self.rec.first_batch = digest(chunks)

    def on_write(self, kind, path):
        self.rec.writes.append({"kind": kind, "path": str(path), "step": self.rec.steps,
                                   "line": self.script_line()})

    def on_simulated(self, what):
        """A GPU call run on the CPU, a dataset download replaced by synthetic data: said in the report."""
        if what not in self.rec.simulated:
            self.rec.simulated.append(what)

    def on_crash(self, exc):
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename) == self.script]
        line, code = (frames[-1].lineno, frames[-1].line or "") if frames else (None, "")
        # An error raised while tracing a tf.function names the script's own lines in its message ("in user
        # code: File ..., line N"): the innermost of those is where it really failed, not the call site.
        inner = [int(n) for path, n in re.findall(r'File "([^"]+)", line (\d+)', str(exc))
                 if os.path.abspath(path) == self.script]
        if inner:
            line, code = inner[-1], linecache.getline(self.script, inner[-1]).strip()
        what = f"exit status {exc.code}" if isinstance(exc, SystemExit) else " ".join(str(exc).split())[:400]
        self.rec.crash = {"error": f"{type(exc).__name__}: {what}", "line": line, "code": code}

    # --- helpers -----------------------------------------------------------------------------
    def script_line(self):
        """The line of the user's script that is running now (innermost frame in that file)."""
        f = sys._getframe(1)
        while f is not None:
            if os.path.abspath(f.f_code.co_filename) == self.script:
                return f.f_lineno
            f = f.f_back
        return None

    def write(self):
        self.rec.seconds = round(time.time() - self.t0, 2)
        path = os.path.join(self.out_dir, f"rank-{self.rank}.json")
        files.write_json(path, dataclasses.asdict(self.rec), indent=None)
