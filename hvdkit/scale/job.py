"""This process's Horovod job as hvdkit's tools see it from inside: who it is, and how many steps it has run.

`hk.init()` registers the job (its Context and the framework's horovod module); a sequential program has
none. The meters (hvdkit.scale.meter: the examples' Meter, and hk.progress) report every training step
here, so that what a tool asks for through the environment happens without a line in the script:
- `hvdkit timeline capture --steps A:B` ($HVDKIT_TIMELINE, $HVDKIT_TIMELINE_STEPS): the Horovod timeline of
  steps A..B-1 only, started and stopped at those steps (hvdkit.timeline.capture);
- `hvdkit scale` ($HVDKIT_RECORD): every rank's step times gathered, the per-rank report and the run record.
Steps are counted over the whole job (every pass of every meter), from 0.
"""
import atexit

_job = None


class Job:
    def __init__(self, ctx, hvd, framework):
        self.ctx, self.hvd, self.framework = ctx, hvd, framework
        self.steps = 0          # training steps this rank has finished, over every meter
        self.notes = {}         # what hvdkit measured on the way (hk.train_step's XLA trial), for the record
        self.progress = None    # hk.progress's meter, kept from one pass to the next
        self._window = None     # the timeline window the environment asks for, made at the first step
        self._window_made = False

    def at_step(self):
        """A meter is about to run step `self.steps`: start or stop the timeline window there."""
        if not self._window_made:
            from hvdkit.timeline.capture import window_from_environment
            self._window, self._window_made = window_from_environment(self.hvd), True
        if self._window is not None:
            self._window.step(self.steps)

    def step_done(self):
        self.steps += 1
        self.at_step()

    def close_window(self):
        """Stop the timeline window if it is still recording (the run ended inside it)."""
        if self._window is not None:
            self._window.close()

    def gather(self, obj):
        """Every rank's `obj`, in rank order, on every rank (a collective: all ranks must call it)."""
        return self.hvd.allgather_object(obj) if self.ctx.size > 1 else [obj]


def attach(ctx, hvd, framework):
    """Called by init(): this process is rank ctx.rank of a Horovod job of `framework` ("torch", "tensorflow")."""
    global _job
    _job = Job(ctx, hvd, framework)
    # A run that ends inside the window still gets a complete trace: before Horovod's own atexit shutdown
    # (registered earlier, so it runs later).
    atexit.register(_job.close_window)
    return _job


def current():
    """This process's Job after hk.init(), or None (a sequential program, or Horovod started by hand)."""
    return _job
