"""Choose the faster of two ways to run one training step by timing real steps of the run itself.

Guarantees:
- Every step of the trial is a real training step: both ways compute the same update, so the trial costs
  time (each way's first, compiling step), not training.
- Each way runs once untimed first (tracing, compiling), then the timed steps alternate A B B A B ...:
  a host that speeds up or slows down during the trial favours neither way.
- Every rank makes the same choice: `agree` turns this rank's mean times into the job's (an allreduce
  average in the framework adapters), so ranks that timed differently still follow one way.
- A way that failed (an op XLA cannot compile, say) counts as infinitely slow, so the job falls back to the
  other way on every rank, and the failure is kept in `failed` for the report. Its planned steps still run,
  the other way and untimed, so every rank reaches the decision (a collective) at the same step, failed or not.
"""
import math


class Trial:
    @staticmethod
    def length(timed_per_way=2):
        """Steps a trial takes: each way once untimed, then timed_per_way timed steps each."""
        return 2 + 2 * timed_per_way

    def __init__(self, ways, timed_per_way=2):
        if len(ways) != 2 or ways[0] == ways[1]:
            raise ValueError(f"a trial compares two different ways, got {ways!r}")
        if timed_per_way < 1:
            raise ValueError(f"timed_per_way must be >= 1, got {timed_per_way}")
        a, b = ways
        timed = [(a, b), (b, a)] * ((timed_per_way + 1) // 2)
        order = [w for pair in timed for w in pair][:2 * timed_per_way]
        self.ways = tuple(ways)
        self._plan = [(a, False), (b, False)] + [(w, True) for w in order]
        self._at = 0
        self.times = {w: [] for w in ways}
        self.failed = {}  # way -> the error's one-line description
        self.means = None  # {way: the job's mean seconds per timed step}, once decided
        self.choice = None

    def next(self):
        """(way, timed) for the next step, or None once every planned step has run. A step planned for a way
        that failed runs the other way, untimed."""
        if self._at == len(self._plan):
            return None
        way, timed = self._plan[self._at]
        if way in self.failed:
            return self._other(way), False
        return way, timed

    def record(self, seconds=None, error=None):
        """The step next() named took `seconds`, or raised `error`: then the same step is to be run again
        the way next() names now (the plan does not move on)."""
        way, timed = self.next()
        if error is not None:
            self.failed[way] = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:200]}"
            if len(self.failed) == len(self.ways):
                raise RuntimeError(self._every_way_failed()) from error
            return
        self._at += 1
        if timed:
            self.times[way].append(float(seconds))

    def _every_way_failed(self):
        return "every way failed: " + "; ".join(f"{w}: {e}" for w, e in self.failed.items())

    def _other(self, way):
        return self.ways[1] if way == self.ways[0] else self.ways[0]

    def decide(self, agree=lambda means: means):
        """The chosen way. `agree` maps this rank's [mean of A, mean of B] to the job's (same order)."""
        if len(self.failed) == len(self.ways):
            raise RuntimeError(self._every_way_failed())
        local = [math.inf if w in self.failed or not self.times[w] else sum(self.times[w]) / len(self.times[w])
                 for w in self.ways]
        means = [float(m) for m in agree(local)]
        self.means = dict(zip(self.ways, means))
        self.choice = self.ways[0] if means[0] <= means[1] else self.ways[1]
        return self.choice

    def report(self, label=str):
        """One line: each way's mean step time over the job and the choice (or why a way failed)."""
        parts = []
        for way in self.ways:
            if way in self.failed:
                parts.append(f"{label(way)} failed ({self.failed[way]})")
            elif self.means and math.isfinite(self.means[way]):
                parts.append(f"{label(way)} {1e3 * self.means[way]:.0f} ms")
            else:
                parts.append(f"{label(way)} failed on another rank")
        return ", ".join(parts) + f" per step: {label(self.choice)}"
