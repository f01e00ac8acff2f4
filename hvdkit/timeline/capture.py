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
"""
import os

from hvdkit.common.errors import HvdkitError


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
    """Record the timeline of steps [A, B) to `path` (written by rank 0)."""

    def __init__(self, hvd, path, steps, mark_cycles=False):
        self.hvd = hvd
        self.path = os.path.abspath(path)
        self.start_step, self.stop_step = parse_steps(steps)
        self.mark_cycles = bool(mark_cycles)
        self.recording = False
        self.done = False
        if not _initialized(hvd):
            os.environ.setdefault("HOROVOD_TIMELINE", "DYNAMIC")

    def step(self, step):
        """Call at the start of every step, on every rank, with the global step number."""
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

    def stop(self):
        """Stop recording; on rank 0 this returns once the file is complete (a closed JSON array)."""
        if self.recording:
            self.hvd.stop_timeline()
            self.recording = False
            self.done = True

    close = stop

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    @classmethod
    def factory(cls, hvd):
        """timeline_window(path, steps, mark_cycles=False) bound to one framework's horovod module."""
        def timeline_window(path, steps, mark_cycles=False):
            return cls(hvd, path, steps, mark_cycles=mark_cycles)
        timeline_window.__doc__ = cls.__doc__ + "\n\n" + __doc__
        return timeline_window


def _initialized(hvd):
    try:
        return bool(hvd.is_initialized())
    except (AttributeError, ValueError):
        return False
