"""Live progress, the final throughput report and the run record of a training loop. Framework-free.

    meter = Meter(total_steps=12, untimed_steps=2, batch_size=16, rank=ctx.rank)
    meter.say("one line from rank 0")
    for step in range(12):
        loss = train_step(...)            # a float: the step has finished
        meter.step(loss)                  # rank 0: "step 3/12: 2.10 s, 7.6 img/s on rank 0, loss 6.9123, 0:21 left"
    ranks = hvd.allgather_object(meter.summary())         # with Horovod; [meter.summary()] alone otherwise
    meter.finish(ranks, mean_loss, json_path, **fields)   # rank 0: the report, and the record (docs/scale.md)

A step's time runs from the end of the previous step (or from the meter's creation) to step(): fetching
the batch, forward, backward, the gradient allreduce and the update. The first `untimed_steps` steps (graph
tracing, allocator warm-up) are shown but not timed. ("Warmup" in hvdkit is the learning-rate warm-up
of step 4 only.) A rank's rate is its timed images over its timed
seconds; the total is the sum of the ranks' rates, never rank 0's rate times the ranks.
"""
import math
import os
import socket
import statistics
import sys
import time

from hvdkit.scale import record as run_record
from hvdkit.common.context import usable_cores


def clock(seconds):
    """0:07, 2:05, 1:02:05."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class Meter:
    def __init__(self, total_steps, untimed_steps, batch_size, rank=0, every=1, unit="images", out=None):
        if untimed_steps >= total_steps:
            raise ValueError(f"{total_steps} steps leave none to time after {untimed_steps} untimed steps")
        self.total, self.untimed, self.batch = int(total_steps), int(untimed_steps), int(batch_size)
        self.rank, self.every, self.unit = rank, max(1, int(every)), unit
        self.short = {"images": "img"}.get(unit, unit)
        self.out = out
        self.done = 0
        self.times = []
        self.loss_sum = 0.0
        self.load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        self._last = time.perf_counter()

    def say(self, *lines):
        """Print on rank 0 only (a line per argument; None is skipped)."""
        if self.rank == 0:
            for line in lines:
                if line is not None:
                    print(line, file=self.out or sys.stdout, flush=True)

    def step(self, loss):
        """Call once per finished step with its loss (a float: converting it waits for the device)."""
        now = time.perf_counter()
        elapsed, self._last = now - self._last, now
        self.done += 1
        timed = self.done > self.untimed
        if timed:
            self.times.append(elapsed)
            self.loss_sum += float(loss) * self.batch
        if self.rank == 0 and (self.done % self.every == 0 or self.done == self.total or not timed):
            self.say(self._line(elapsed, loss, timed))

    def _line(self, elapsed, loss, timed):
        line = (f"step {self.done}/{self.total}: {elapsed:.2f} s, {self.batch / elapsed:.1f} {self.short}/s on rank "
                f"{self.rank}, loss {float(loss):.4f}")
        if not timed:
            return line + " (untimed)"
        left = self.total - self.done
        return line + (f", {clock(left * statistics.fmean(self.times))} left" if left else "")

    def loss_pair(self):
        """(sum of the timed steps' losses x batch, images): what average_metrics adds over ranks."""
        return self.loss_sum, len(self.times) * self.batch

    def summary(self):
        """This rank's timed figures, JSON-safe: gather one per rank for finish()."""
        rates = [self.batch / t for t in self.times]
        return {
            "host": socket.gethostname(), "cpu_count": os.cpu_count(), "affinity": usable_cores(),
            "times": list(self.times), "rate": self.batch * len(self.times) / math.fsum(self.times),
            "step_rate_mean": statistics.fmean(rates),
            "step_rate_std": statistics.stdev(rates) if len(rates) > 1 else 0.0,
        }

    def finish(self, ranks, loss, json_path=None, threads_per_rank=None, **fields):
        """On rank 0: build the run record from every rank's summary(), print the report, write the record.

        Returns the record on rank 0, None elsewhere. `fields` go into the record as they are.
        """
        if self.rank != 0:
            return None
        hosts = {}
        for r in ranks:
            hosts.setdefault(r["host"], []).append(r)
        rates = [r["rate"] for r in ranks]
        fields.setdefault("load_average", self.load_average)
        rec = run_record.build(
            len(ranks), rates, math.fsum(rates), unit=self.unit, **fields,
            batch_size=self.batch, global_batch_size=self.batch * len(ranks),
            untimed_steps=self.untimed, timed_steps=len(self.times),
            hosts=len(hosts), local_size=max(len(rs) for rs in hosts.values()), threads_per_rank=threads_per_rank,
            cpu_count=ranks[0]["cpu_count"], affinity_cores=[r["affinity"] for r in ranks],
            oversubscribed=any(len(rs) > rs[0]["cpu_count"] for rs in hosts.values()),
            step_times=[r["times"] for r in ranks],
            step_rate_mean=[r["step_rate_mean"] for r in ranks], step_rate_std=[r["step_rate_std"] for r in ranks],
            loss=float(loss))
        report(rec, out=self.out or sys.stdout)
        if json_path:
            print(f"record: {run_record.write(json_path, rec)}", file=self.out or sys.stdout, flush=True)
        return rec


def report(rec, out=None):
    """The final lines: each rank's images/s (per-step mean and spread, and its rate), the total, the loss."""
    out = out or sys.stdout
    short, one = {"images": ("img", "image")}.get(rec["unit"], (rec["unit"], rec["unit"]))
    for rank, (mean, std, rate) in enumerate(zip(rec["step_rate_mean"], rec["step_rate_std"], rec["rank_rates"])):
        print(f"rank {rank}: mean {one}/s = {mean:.2f} standard deviation: {std:.2f} "
              f"(rank rate {rate:.2f} {short}/s)", file=out)
    slow, fast = rec["slowest_rank"], rec["fastest_rank"]
    note = " [more ranks than cores on a node: oversubscribed]" if rec.get("oversubscribed") else ""
    print(f"total: {rec['total_rate']:.2f} {short}/s on {rec['ranks']} rank(s) (sum of rank rates); "
          f"slowest rank {slow['rank']} {slow['rate']:.2f}, fastest rank {fast['rank']} {fast['rate']:.2f}{note}",
          file=out)
    print(f"loss: {rec['loss']:.4f} (mean over all ranks' timed steps)", file=out, flush=True)
    if not math.isfinite(rec["loss"]):
        # Batch norm over a few 1x1 feature maps (tiny images, tiny batches) gives huge gradients.
        hint = "; float16 overflows above 65504: drop --fp16-allreduce" if rec.get("fp16_allreduce") else ""
        print(f"warning: the loss is not finite: use a larger --batch-size or --image-size{hint} "
              "(the throughput above is still measured)", file=sys.stderr, flush=True)
