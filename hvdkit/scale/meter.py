"""Live progress, the final throughput report and the run record of a training loop. Framework-free.

    meter = Meter(total_steps=12, untimed_steps=2, batch_size=16)
    meter.say("one line from rank 0")
    for step in range(12):
        loss = train_step(...)            # a float: the step has finished
        meter.step(loss)                  # rank 0: "step 3/12: 2.10 s, 7.6 img/s on rank 0, loss 6.9123, 0:21 left"
    meter.finish(mean_loss, framework="torch")   # rank 0: the report, and the run record when asked for one

The same lines serve a sequential program and every rank of a Horovod job. After hk.init() the meter
knows the job (hvdkit.scale.job): it prints on rank 0 only, reports each step to the job (which starts and
stops the timeline window `hvdkit timeline capture --steps A:B` asks for), and finish() gathers every
rank's step times. The record (docs/scale.md) goes to finish()'s `json_path`, else to $HVDKIT_RECORD (set
by `hvdkit scale`), else nowhere. `progress()` is the same meter without the lines, around a loop's batches
(hk.progress).

A step's time runs from the end of the previous step (or from the meter's creation) to step(): fetching
the batch, forward, backward, the gradient allreduce and the update; the meter's own printing and timeline
switching are left out. The first `untimed_steps` steps (graph tracing, allocator warm-up) are shown but not
timed. ("Warmup" in hvdkit is the learning-rate warm-up of step 4 only.) A rank's rate is its timed images
over its timed seconds; the total is the sum of the ranks' rates, never rank 0's rate times the ranks.
"""
import math
import os
import socket
import statistics
import sys
import time

from hvdkit.scale import job as _job
from hvdkit.scale import record as run_record
from hvdkit.common.context import usable_cores
from hvdkit.common.log import progress0

PROGRESS_UNTIMED_STEPS = 2  # hk.progress: the job's first steps trace graphs and warm allocators up


def clock(seconds):
    """0:07, 2:05, 1:02:05."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class Meter:
    """total_steps None: a loop of unknown length (progress()); lines=False: no progress lines."""

    def __init__(self, total_steps, untimed_steps, batch_size, rank=None, every=1, unit="images", out=None,
                 lines=True):
        if total_steps is not None and untimed_steps >= total_steps:
            raise ValueError(f"{total_steps} steps leave none to time after {untimed_steps} untimed steps")
        self.job = _job.current()
        self.total = None if total_steps is None else int(total_steps)
        self.untimed = int(untimed_steps)
        self.batch = None if batch_size is None else int(batch_size)
        self.rank = rank if rank is not None else (self.job.ctx.rank if self.job else 0)
        self.every, self.unit, self.lines = max(1, int(every)), unit, lines
        self.short = {"images": "img"}.get(unit, unit)
        self.out = out
        self.done = 0
        self.times, self.counts = [], []
        self.loss_sum = 0.0
        self.load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        if self.job and lines:
            ctx = self.job.ctx
            self.say(f"{ctx.size} rank(s) x {ctx.threads} thread(s), batch {self.batch} per rank")
        self.restart()

    def restart(self):
        """The next step starts now (progress(): the time between two passes, evaluation say, is no step's)."""
        if self.job:
            self.job.at_step()
        self._last = time.perf_counter()

    def say(self, *lines):
        """Print on rank 0 only (a line per argument; None is skipped)."""
        if self.rank == 0:
            for line in lines:
                if line is not None:
                    print(line, file=self.out or sys.stdout, flush=True)

    def step(self, loss=None, count=None):
        """Call once per finished step with its loss (a float: converting it waits for the device) and, if it
        is not batch_size, the number of samples it took."""
        elapsed = time.perf_counter() - self._last
        self.done += 1
        count = self.batch if count is None else int(count)
        timed = self.done > self.untimed
        if timed:
            self.times.append(elapsed)
            self.counts.append(count)
            if loss is not None:
                self.loss_sum += float(loss) * count
        if self.lines and self.rank == 0 and (self.done % self.every == 0 or self.done == self.total or not timed):
            self.say(self._line(elapsed, loss, count, timed))
        if self.job:
            self.job.step_done()
        self._last = time.perf_counter()

    def _line(self, elapsed, loss, count, timed):
        line = f"step {self.done}/{self.total or '?'}: {elapsed:.2f} s, {count / elapsed:.1f} {self.short}/s on rank " \
               f"{self.rank}" + (f", loss {float(loss):.4f}" if loss is not None else "")
        if not timed:
            return line + " (untimed)"
        left = self.total - self.done if self.total else 0
        return line + (f", {clock(left * statistics.fmean(self.times))} left" if left else "")

    def loss_pair(self):
        """(sum of the timed steps' losses x batch, images): what average_metrics adds over ranks."""
        return self.loss_sum, sum(self.counts)

    def summary(self):
        """This rank's timed figures, JSON-safe: one per rank is what the report and the record are built from."""
        rates = [c / t for c, t in zip(self.counts, self.times)]
        return {
            "host": socket.gethostname(), "cpu_count": os.cpu_count(), "affinity": usable_cores(),
            "times": list(self.times), "batch": self.batch or max(self.counts, default=0),
            "rate": sum(self.counts) / math.fsum(self.times) if self.times else None,
            "step_rate_mean": statistics.fmean(rates) if rates else None,
            "step_rate_std": statistics.stdev(rates) if len(rates) > 1 else 0.0,
        }

    def finish(self, loss=None, json_path=None, **fields):
        """Every rank, once training is over: stop the timeline window, then publish(). Rank 0 returns the record."""
        if self.job:
            self.job.close_window()
        return self.publish(loss, json_path, **fields)

    def publish(self, loss=None, json_path=None, **fields):
        """Every rank (a collective in a job): gather every rank's summary(); rank 0 prints the report and writes
        the record to `json_path` or $HVDKIT_RECORD. Returns the record on rank 0, None elsewhere. `fields` go
        into the record as they are."""
        ranks = self.job.gather(self.summary()) if self.job else [self.summary()]
        if self.rank != 0:
            return None
        if any(r["rate"] is None for r in ranks):
            self.say(f"no run record: no step was timed yet (the first {self.untimed} are untimed)")
            return None
        rec = self._record(ranks, loss, fields)
        report(rec, out=self.out or sys.stdout)
        path = json_path or run_record.default_path()
        if path:
            print(f"record: {run_record.write(path, rec)}", file=self.out or sys.stdout, flush=True)
        return rec

    def _record(self, ranks, loss, fields):
        hosts = {}
        for r in ranks:
            hosts.setdefault(r["host"], []).append(r)
        rates = [r["rate"] for r in ranks]
        batch = ranks[0]["batch"]
        fields.setdefault("program", sys.argv[0])
        fields.setdefault("versions", run_record.versions())
        fields.setdefault("load_average", self.load_average)
        if self.job:
            ctx = self.job.ctx
            fields.setdefault("framework", self.job.framework)
            fields.update(threads_per_rank=ctx.threads, device=ctx.device)
            if self.job.notes:
                fields["notes"] = dict(self.job.notes)
        if loss is not None:
            fields["loss"] = float(loss)
        return run_record.build(
            len(ranks), rates, math.fsum(rates), unit=self.unit, **fields,
            batch_size=batch, global_batch_size=sum(r["batch"] for r in ranks),
            untimed_steps=self.untimed, timed_steps=len(self.times),
            hosts=len(hosts), local_size=max(len(rs) for rs in hosts.values()),
            cpu_count=ranks[0]["cpu_count"], affinity_cores=[r["affinity"] for r in ranks],
            oversubscribed=any(len(rs) > rs[0]["cpu_count"] for rs in hosts.values()),
            step_times=[r["times"] for r in ranks],
            step_rate_mean=[r["step_rate_mean"] for r in ranks], step_rate_std=[r["step_rate_std"] for r in ranks])


def metered_bar(rank, iterable=None, batch_size=None, **bar):
    """hk.progress: a tqdm bar on rank 0 (the plain iterable on the other ranks), each item of which is one
    training step to the job's meter (progress()): what `hvdkit scale` and `hvdkit timeline capture` read.
    Without an iterable: a bar to update by hand, unmetered."""
    if iterable is None:
        return progress0(rank, None, **bar)
    return progress(progress0(rank, iterable, **bar), batch_size)


def progress(iterable, batch_size=None, untimed_steps=PROGRESS_UNTIMED_STEPS):
    """Yield `iterable`'s items, each one training step of the job's meter (hk.progress).

    A step of len(item[0]) samples (or `batch_size`) runs from the loop's request for its item to the request
    for the next. One meter serves the job's every pass, so the timeline window counts steps across epochs.
    After each complete pass, when a record is asked for ($HVDKIT_RECORD), every rank publishes (a
    collective: the shards give every rank the same number of steps) the figures of all passes so far.
    """
    job = _job.current()
    meter = job.progress if job and job.progress else Meter(None, untimed_steps, batch_size, unit="samples",
                                                               lines=False)
    if job:
        job.progress = meter
    meter.restart()
    for item in iterable:
        yield item
        meter.step(count=batch_size or _length(item))
    if run_record.default_path():
        meter.publish()


def _length(item):
    """The samples in a batch: the length of (x, y)'s x, of a dict's first value, or of the batch itself."""
    if isinstance(item, dict):
        item = next(iter(item.values()), item)
    first = item[0] if isinstance(item, (tuple, list)) else item
    try:
        return len(first)
    except TypeError:  # not a batch of samples: count steps
        return 1


def report(rec, out=None):
    """The final lines: each rank's images/s (per-step mean and spread, and its rate), the total, the loss."""
    out = out or sys.stdout
    short, one = {"images": ("img", "image"), "samples": ("samples", "sample")}.get(rec["unit"],
                                                                                      (rec["unit"], rec["unit"]))
    for rank, (mean, std, rate) in enumerate(zip(rec["step_rate_mean"], rec["step_rate_std"], rec["rank_rates"])):
        print(f"rank {rank}: mean {one}/s = {mean:.2f} standard deviation: {std:.2f} "
              f"(rank rate {rate:.2f} {short}/s)", file=out)
    slow, fast = rec["slowest_rank"], rec["fastest_rank"]
    note = " [more ranks than cores on a node: oversubscribed]" if rec.get("oversubscribed") else ""
    print(f"total: {rec['total_rate']:.2f} {short}/s on {rec['ranks']} rank(s) (sum of rank rates); "
          f"slowest rank {slow['rank']} {slow['rate']:.2f}, fastest rank {fast['rank']} {fast['rate']:.2f}{note}",
          file=out)
    for name, text in (rec.get("notes") or {}).items():
        print(f"{name}: {text}", file=out)
    if "loss" in rec:
        print(f"loss: {rec['loss']:.4f} (mean over all ranks' timed steps)", file=out)
        if not math.isfinite(rec["loss"]):
            # Batch norm over a few 1x1 feature maps (tiny images, tiny batches) gives huge gradients.
            print("warning: the loss is not finite: use a larger --batch-size or --image-size "
                  "(the throughput above is still measured)", file=sys.stderr, flush=True)
    out.flush()
