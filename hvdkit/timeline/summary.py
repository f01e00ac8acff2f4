"""One pass over a Horovod timeline: where the time goes, per collective, phase, tensor, rank and cycle.

What Horovod 0.28 writes (horovod/common/timeline.cc), and how it is read here:

- Each tensor is a Chrome-trace "process": ``{"ph": "M", "name": "process_name", "pid": P, "args":
  {"name": TENSOR}}`` maps pid P to the tensor name.
- Negotiation: ``B NEGOTIATE_ALLREDUCE`` ... ``E`` on the tensor's pid, with one ``X`` event named by
  the rank ("0", "1", ...) at the moment the coordinator saw that rank ready. Negotiations answered from
  the response cache (every step after the first, by default) have no rank ticks.
- The operation: ``B ALLREDUCE`` (or BROADCAST, ALLGATHER, ...) ... ``E``, with nested ``B``/``E``
  activities (QUEUE, MEMCPY_IN_FUSION_BUFFER, MPI_ALLREDUCE, GLOO_ALLREDUCE, ...). The operation's ``E``
  carries ``args: {"dtype", "shape"}`` of the output, which gives its size in bytes.
- Fusion: Horovod writes the begin events of one fused collective for all its tensors back to back
  (``ActivityStartAll``), so N consecutive ``B MPI_ALLREDUCE`` records (no other record between them) are one
  collective carrying N tensors.
- ``{"ph": "i", "name": "CYCLE_START"}`` marks each background-loop cycle when mark_cycles is on.

Times in the trace are microseconds since Horovod started its timeline; durations here are too.
"""
import re
from collections import Counter

# Activities that are the transfer itself (MPI_ALLREDUCE, GLOO_BCAST, NCCL_ALLREDUCE, CCL_ALLGATHER, ...).
WIRE = re.compile(r"^(MPI|GLOO|NCCL|CCL|DDL)_")
DTYPE_BYTES = {"uint8": 1, "int8": 1, "bool": 1, "uint16": 2, "int16": 2, "float16": 2, "bfloat16": 2,
               "int32": 4, "float32": 4, "int64": 8, "float64": 8}
DEFAULT_GAP_US = 200
# Response types (horovod/common/message.cc): the top-level interval of a tensor's operation.
OPERATIONS = frozenset(("ALLREDUCE", "ALLGATHER", "BROADCAST", "REDUCESCATTER", "ALLTOALL", "ADASUM", "JOIN",
                        "BARRIER", "ERROR"))


def tensor_bytes(args):
    """Bytes of the output tensor described by an operation's end-event args, or None if not given."""
    if not args or "shape" not in args:
        return None
    size = DTYPE_BYTES.get(args.get("dtype"))
    if size is None:
        return None
    dims = str(args["shape"]).strip("[] ")
    n = 1
    try:
        for d in dims.split(",") if dims else ():
            n *= int(d)
    except ValueError:
        return None  # not a shape Horovod writes
    return n * size


def quantile(counter, q):
    """q-quantile (nearest rank) of the values counted in a Counter."""
    total = sum(counter.values())
    if not total:
        return None
    rank, seen = max(1, round(q * total)), 0
    for value in sorted(counter):
        seen += counter[value]
        if seen >= rank:
            return value
    return value


class _Span:
    """Totals of one named interval kind: count, sum over tensors, and wall time (union over tensors)."""
    __slots__ = ("count", "tensor_us", "wall_us", "open", "since", "kind", "bytes", "sized", "wire",
                 "last_end")

    def __init__(self, kind, name=""):
        self.count = self.tensor_us = self.wall_us = self.open = self.since = self.bytes = self.sized = 0
        self.last_end = 0
        self.kind = kind
        self.wire = kind == "activity" and bool(WIRE.match(name))

    def begin(self, ts):
        if not self.open:
            self.since = ts
        self.open += 1

    def end(self, start, ts):
        self.count += 1
        self.tensor_us += ts - start
        self.last_end = ts
        self.open -= 1
        if not self.open:
            self.wall_us += ts - self.since

    def abandon(self):
        """An interval whose end was never written: take it as over by the last end seen."""
        self.open -= 1
        if not self.open:
            self.wall_us += max(0, self.last_end - self.since)

    def as_dict(self):
        d = {"kind": self.kind, "count": self.count, "tensor_us": self.tensor_us, "wall_us": self.wall_us,
             "mean_us": self.tensor_us / self.count if self.count else None}
        if self.kind == "operation":
            d["bytes"] = self.bytes if self.sized else None  # torch broadcasts end without a shape
        return d


class Summary:
    """Feed records in file order with add(); read the result with as_dict()."""

    def __init__(self, gap_us=DEFAULT_GAP_US):
        self.gap_us = gap_us
        self.names = {}            # pid -> tensor name
        self.stacks = {}           # pid -> [[name, start_ts, group], ...]
        self.spans = {}            # interval name -> _Span
        self.busy = _Span("communication")   # any operation in progress on any tensor
        self.wire = _Span("wire")            # any transfer activity in progress
        self.negotiating = _Span("negotiation")  # any negotiation in progress
        self.tensors = {}          # name -> [ops, op_us, negotiations, negotiation_us, bytes, last shape, dtype]
        self.first_ts = self.last_ts = None
        self.header = {}
        self.sizes = {}            # (shape, dtype) -> bytes, parsed once
        self.phases = Counter()
        self.unmatched_ends = self.abandoned = 0
        # fusion
        self.run_name, self.run_pids = None, []
        self.groups = {}           # group id -> [wire name, tensors left, bytes]
        self.group_seq = 0
        self.fusion = {}           # wire name -> {"sizes": Counter, "bytes": sum, "sized": collectives with bytes}
        # negotiation
        self.ticks = {}            # pid -> [(rank, ts), ...] of the open negotiation
        self.negotiations = self.negotiations_with_ticks = self.ties = 0
        self.last_count, self.lateness = Counter(), {}
        # cycles
        self.cycles, self.cycle_prev, self.cycle_durations = 0, None, Counter()
        self.cycle_busy, self.busy_cycles = False, 0

    def add(self, r):
        self.add_batch((r,))

    def add_batch(self, records):
        """Feed records in file order (the loop is the hot path of a 1 GB trace: keep it lean)."""
        phases, begin, end = self.phases, self._begin, self._end
        last_ts = self.last_ts
        for r in records:
            ph = r["ph"]
            phases[ph] += 1
            if ph == "M":
                self._meta(r)
                continue
            ts = r["ts"]
            if last_ts is None:
                self.first_ts = last_ts = ts
            elif ts < last_ts:
                ts = last_ts  # a writer thread may enqueue a hair out of order; time never runs back
            else:
                last_ts = ts
            if ph == "B":
                begin(r, ts)
                continue
            if self.run_pids:
                self._close_run()
            if ph == "E":
                end(r, ts)
            elif ph == "i":
                if r.get("name") == "CYCLE_START":
                    if self.cycle_prev is not None:
                        self.cycle_durations[ts - self.cycle_prev] += 1
                        self.busy_cycles += self.cycle_busy
                    self.cycles += 1
                    self.cycle_prev, self.cycle_busy = ts, False
            elif ph == "X":
                ticks = self.ticks.get(r["pid"])
                if ticks is not None:
                    ticks.append((r["name"], ts))
        self.last_ts = last_ts

    def _meta(self, r):
        args = r.get("args") or {}
        if r.get("name") == "process_name":
            if "name" in args:
                self.names[r["pid"]] = args["name"]
            elif "start_time_since_epoch_in_micros" in args:
                self.header["start_time_since_epoch_us"] = args["start_time_since_epoch_in_micros"]

    def _begin(self, r, ts):
        pid, name = r["pid"], r["name"]
        stack = self.stacks.get(pid)
        if stack is None:
            stack = self.stacks[pid] = []
        negotiate = name.startswith("NEGOTIATE_")
        if stack and (negotiate or name in OPERATIONS):
            self._abandon(pid, stack)  # operations never nest: what is open was cut off (a job stopped mid-step)
        if stack:
            kind = "activity"
        elif negotiate:
            kind = "negotiation"
            self.ticks[pid] = []
            self.negotiating.begin(ts)
        else:
            kind = "operation"
            self.busy.begin(ts)
            self.cycle_busy = True
        span = self.spans.get(name)
        if span is None:
            span = self.spans[name] = _Span(kind, name)
        span.begin(ts)
        group = None
        if span.wire:
            self.wire.begin(ts)
            if self.run_pids and self.run_name != name:
                self._close_run()
            self.run_name = name
            self.run_pids.append(pid)
            group = self.group_seq
        elif self.run_pids:
            self._close_run()
        stack.append([name, ts, group])

    def _end(self, r, ts):
        pid = r["pid"]
        stack = self.stacks.get(pid)
        if not stack:
            self.unmatched_ends += 1
            return
        name, start, group = stack.pop()
        span = self.spans[name]
        span.end(start, ts)
        if stack:
            if group is not None:
                self.wire.end(start, ts)
                stack[0][2] = group  # the operation remembers which fused collective carried it
            return
        tensor = self.names.get(pid, f"pid {pid}")
        t = self.tensors.get(tensor)
        if t is None:
            t = self.tensors[tensor] = [0, 0, 0, 0, 0, None, None]
        if span.kind == "negotiation":
            t[2] += 1
            t[3] += ts - start
            self.negotiating.end(start, ts)
            self._negotiated(self.ticks.pop(pid, ()))
            return
        self.busy.end(start, ts)
        t[0] += 1
        t[1] += ts - start
        args = r.get("args")
        nbytes = None
        if args:
            key = (args.get("shape"), args.get("dtype"))
            nbytes = self.sizes.get(key, -1)
            if nbytes == -1:
                nbytes = self.sizes[key] = tensor_bytes(args)
        if nbytes is not None:
            t[4] += nbytes
            span.bytes += nbytes
            span.sized += 1
            t[5], t[6] = args["shape"], args["dtype"]
        if group is not None and group in self.groups:
            g = self.groups[group]
            g[1] -= 1
            if nbytes is None:
                g[3] = False
            else:
                g[2] += nbytes
            if g[1] == 0:
                del self.groups[group]
                if g[3]:
                    f = self.fusion[g[0]]
                    f["bytes"] += g[2]
                    f["sized"] += 1

    def _abandon(self, pid, stack):
        for name, _, group in stack:
            span = self.spans[name]
            span.abandon()
            g = self.groups.get(group)
            if g is not None:  # its fused collective can no longer be sized
                g[1] -= 1
                g[3] = False
                if not g[1]:
                    del self.groups[group]
            if span.wire:
                self.wire.abandon()
            elif span.kind == "operation":
                self.busy.abandon()
            elif span.kind == "negotiation":
                self.negotiating.abandon()
                self.ticks.pop(pid, None)
            self.abandoned += 1
        stack.clear()

    def _close_run(self):
        name, n = self.run_name, len(self.run_pids)
        f = self.fusion.get(name)
        if f is None:
            f = self.fusion[name] = {"sizes": Counter(), "bytes": 0, "sized": 0}
        f["sizes"][n] += 1
        self.groups[self.group_seq] = [name, n, 0, True]
        self.group_seq += 1
        self.run_name, self.run_pids = None, []

    def _negotiated(self, ticks):
        self.negotiations += 1
        if len(ticks) < 2:
            return
        self.negotiations_with_ticks += 1
        first = min(ts for _, ts in ticks)
        for rank, ts in ticks:
            late = self.lateness.get(rank)
            if late is None:
                late = self.lateness[rank] = [0, 0, 0]   # ticks, sum of lateness, max lateness
            late[0] += 1
            late[1] += ts - first
            late[2] = max(late[2], ts - first)
        order = sorted(ticks, key=lambda t: t[1])
        if order[-1][1] - order[-2][1] >= self.gap_us:
            self.last_count[order[-1][0]] += 1
        else:
            self.ties += 1

    def finish(self):
        if self.run_pids:
            self._close_run()
        return self

    def as_dict(self, top=10):
        wall = (self.last_ts - self.first_ts) if self.first_ts is not None else 0

        def share(us):
            return us / wall if wall else None

        open_at_end = sum(len(s) for s in self.stacks.values())
        spans = {name: s.as_dict() for name, s in sorted(self.spans.items(), key=lambda kv: -kv[1].wall_us)}
        tensors = [{"name": name, "operations": t[0], "op_us": t[1], "negotiations": t[2], "negotiation_us": t[3],
                    "bytes": t[4], "shape": t[5], "dtype": t[6]} for name, t in self.tensors.items()]
        negotiation_us = self.negotiating.wall_us
        d = {
            "records": sum(self.phases.values()), "events_by_phase": dict(self.phases),
            "first_ts": self.first_ts, "last_ts": self.last_ts, "wall_us": wall, **self.header,
            "communication": {
                "busy_us": self.busy.wall_us, "busy_share": share(self.busy.wall_us),
                "wire_us": self.wire.wall_us, "wire_share": share(self.wire.wall_us),
                "negotiation_us": negotiation_us, "negotiation_share": share(negotiation_us),
            },
            "collectives": {n: s for n, s in spans.items() if s["kind"] == "operation"},
            "negotiations": {n: s for n, s in spans.items() if s["kind"] == "negotiation"},
            "activities": {n: s for n, s in spans.items() if s["kind"] == "activity"},
            "tensors": {
                "count": len(tensors),
                "top_by_time": sorted(tensors, key=lambda t: (-t["op_us"], t["name"]))[:top],
                "top_by_bytes": sorted((t for t in tensors if t["bytes"]),
                                       key=lambda t: (-t["bytes"], t["name"]))[:top],
            },
            "fusion": {name: _fusion_dict(f) for name, f in sorted(self.fusion.items())},
            "negotiation": self._negotiation_dict(),
            "cycles": self._cycles_dict(),
            "open_at_end": open_at_end, "unmatched_ends": self.unmatched_ends, "abandoned": self.abandoned,
        }
        return d

    def _negotiation_dict(self):
        ranks = {}
        for rank, (n, total, worst) in sorted(self.lateness.items(), key=lambda kv: _rank_key(kv[0])):
            ranks[rank] = {"ticks": n, "last": self.last_count.get(rank, 0), "mean_lateness_us": total / n,
                           "max_lateness_us": worst}
        most = max(self.last_count.items(), key=lambda kv: (kv[1], -_rank_key(kv[0])))[0] if self.last_count else None
        return {"count": self.negotiations, "with_rank_ticks": self.negotiations_with_ticks, "ties": self.ties,
                "gap_us": self.gap_us, "most_often_last": most, "ranks": ranks}

    def _cycles_dict(self):
        if not self.cycles:
            return None
        c = self.cycle_durations
        n = sum(c.values())
        return {"count": self.cycles, "busy": self.busy_cycles,
                "mean_us": sum(k * v for k, v in c.items()) / n if n else None,
                "min_us": min(c) if c else None, "p50_us": quantile(c, 0.5), "p95_us": quantile(c, 0.95),
                "max_us": max(c) if c else None}


def _fusion_dict(f):
    sizes = f["sizes"]
    collectives = sum(sizes.values())
    tensors = sum(k * v for k, v in sizes.items())
    return {"collectives": collectives, "tensors": tensors, "mean_tensors": tensors / collectives,
            "max_tensors": max(sizes), "fused": sum(v for k, v in sizes.items() if k > 1),
            "histogram": {str(k): v for k, v in sorted(sizes.items())},
            "mean_bytes": f["bytes"] / f["sized"] if f["sized"] else None}


def _rank_key(rank):
    return int(rank) if str(rank).isdigit() else 1 << 30


def summarize(path, top=10, gap_us=DEFAULT_GAP_US):
    """Summary dict of the timeline at `path` (see Summary); raises TraceError for unreadable input."""
    from hvdkit.timeline.parse import Trace, horovod_records
    trace = Trace(path)
    s = Summary(gap_us=gap_us)
    with horovod_records(trace):
        for batch in trace.batches():
            s.add_batch(batch)
        d = s.finish().as_dict(top=top)
    d["trace"] = {"path": trace.path, "bytes": trace.size, "closed": trace.closed,
                  "dropped_tail_chars": trace.dropped_chars}
    return d
