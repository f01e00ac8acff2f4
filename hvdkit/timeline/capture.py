"""Recording Horovod's timeline for a window of steps only (hvd.start_timeline / hvd.stop_timeline).

A whole-run HOROVOD_TIMELINE grows by megabytes per second; a few steps after warm-up say as much.

    tw = hk.timeline_window("trace.json", steps="20:30", mark_cycles=True)   # before hk.init()
    ctx = hk.init()
    for step in range(steps):
        tw.step(step)          # starts recording at step 20, stops at step 30
        train_step()
    tw.close()                 # stops if the run ended inside the window

Horovod accepts start_timeline only when HOROVOD_TIMELINE was set before hvd.init(), so creating the window
before init sets HOROVOD_TIMELINE=DYNAMIC (record nothing until asked) when it is not set. Only rank 0 writes
the file; every rank must call step() (the cycle-marking switch is per rank).

From outside, with no line in the script: `hvdkit timeline capture --steps A:B -- CMD` sets HOROVOD_TIMELINE
to the trace's path (Horovod records from hvd.init()), HVDKIT_TIMELINE to the same path and
HVDKIT_TIMELINE_STEPS to A:B. A script whose steps run through hvdkit's meters (hvdkit.scale.job) gets a
window from window_from_environment() at its first step: it stops the whole-run recording there and
starts it again, truncating the file, at step A. A plain Horovod script never asks: its trace holds the
whole run. Rank 0 writes what the window recorded to $HVDKIT_TIMELINE_REPORT, for the capture to say.
"""
import os

from hvdkit.common import files
from hvdkit.common.errors import HvdkitError

PATH_ENV = "HVDKIT_TIMELINE"
STEPS_ENV = "HVDKIT_TIMELINE_STEPS"
REPORT_ENV = "HVDKIT_TIMELINE_REPORT"
MARK_CYCLES_ENV = "HOROVOD_TIMELINE_MARK_CYCLES"  # Horovod's own, read at init; the window passes it on


class TimelineError(HvdkitError, RuntimeError):
    pass


def parse_steps(steps):
    """'A:B' or (A, B) -> (A, B) with 0 <= A < B: record steps A..B-1."""
    if isinstance(steps, str):
        parts = steps.split(":")
        try:
            if len(parts) != 2:
                raise ValueError
            a, b = int(parts[0]), int(parts[1])
        except ValueError:
            raise ValueError(f"bad step window {steps!r}: use A:B, e.g. 20:30 records steps 20 to 29") from None
    else:
        a, b = steps
    if not 0 <= a < b:
        raise ValueError(f"bad step window {a}:{b}: need 0 <= A < B (records steps A to B-1)")
    return a, b


class TimelineWindow:
    """Record the timeline of steps [A, B) to `path` (written by rank 0).

    running=True: Horovod has been recording the whole run to `path` since init (HOROVOD_TIMELINE=path);
    the window stops that now, and start() begins the file again. `report`: a JSON file rank 0 keeps up to
    date with the steps asked for and the steps recorded.
    """

    def __init__(self, hvd, path, steps, mark_cycles=False, running=False, report=None):
        self.hvd = hvd
        self.path = os.path.abspath(path)
        self.start_step, self.stop_step = parse_steps(steps)
        self.mark_cycles = bool(mark_cycles)
        self.recording = False
        self.done = False
        self.report_path, self.recorded, self.last_step = report, None, None
        if not _initialized(hvd):
            os.environ.setdefault("HOROVOD_TIMELINE", "DYNAMIC")
        else:
            if running:
                hvd.stop_timeline()
            self._report()

    def step(self, step):
        """Call at the start of every step, on every rank, with the global step number."""
        self.last_step = step
        if not self.recording and not self.done and self.start_step <= step < self.stop_step:
            self.start()
        elif self.recording and step >= self.stop_step:
            self.stop()

    def start(self):
        if not os.environ.get("HOROVOD_TIMELINE"):
            raise TimelineError("Horovod records a timeline only if HOROVOD_TIMELINE was set before hvd.init(): create "
                                "the timeline window before init, or launch with -x HOROVOD_TIMELINE=DYNAMIC")
        if self.hvd.rank() == 0:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
        try:
            self.hvd.start_timeline(self.path, mark_cycles=self.mark_cycles)
        except ValueError as exc:
            raise TimelineError(f"cannot start the Horovod timeline ({exc}): create the timeline window before "
                                "hvd.init(), or export HOROVOD_TIMELINE=DYNAMIC to all ranks") from exc
        self.recording = True
        self.recorded = [self.last_step, None]

    def stop(self):
        """Stop recording; on rank 0 this returns once the file is complete (a closed JSON array)."""
        if self.recording:
            self.hvd.stop_timeline()
            self.recording = False
            self.done = True
            if self.last_step is not None:
                self.recorded[1] = min(self.last_step, self.stop_step)
            self._report()

    def close(self):
        """Stop if still recording (the run ended inside the window); the report then says how far it got."""
        self.stop()
        self._report()

    def _report(self):
        if self.report_path and self.hvd.rank() == 0:
            files.write_json(self.report_path, {"path": self.path, "steps": [self.start_step, self.stop_step],
                                                "recorded": self.recorded, "steps_run": self.last_step,
                                                "ranks": self.hvd.size()})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @classmethod
    def factory(cls, hvd):
        """timeline_window(path, steps, mark_cycles=False) bound to one framework's horovod module."""
        def timeline_window(path, steps, mark_cycles=False):
            return cls(hvd, path, steps, mark_cycles=mark_cycles)
        timeline_window.__doc__ = cls.__doc__ + "\n\n" + __doc__
        return timeline_window


def window_from_environment(hvd):
    """The window `hvdkit timeline capture` asks for through the environment, or None (see the module's doc)."""
    path = os.environ.get(PATH_ENV)
    if not path:
        return None
    try:
        steps = parse_steps(os.environ.get(STEPS_ENV, ""))
    except ValueError as exc:
        raise TimelineError(f"${STEPS_ENV}: {exc}") from None
    running = os.environ.get("HOROVOD_TIMELINE", "DYNAMIC") != "DYNAMIC"
    mark = os.environ.get(MARK_CYCLES_ENV, "").lower() in ("1", "true", "yes", "on")
    return TimelineWindow(hvd, path, steps, mark_cycles=mark, running=running, report=os.environ.get(REPORT_ENV))


def _initialized(hvd):
    try:
        return bool(hvd.is_initialized())
    except (AttributeError, ValueError):
        return False
