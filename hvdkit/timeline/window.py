"""A time window of a trace: parsing "--start/--end" values and walking the records inside the window.

Window bounds are relative to the trace's first timestamped event, so "--start 2 --end 2.5" means the
half second starting 2 s into the recording whatever Horovod's own clock said. Intervals that cross a
bound are clipped to it, so every begin inside the window has its end and the window reads on its own.
"""
import re

_UNITS = {"us": 1, "ms": 1e3, "s": 1e6, "": 1e6}


def parse_time(text):
    """'1.5', '1.5s', '1500ms', '1500000us' -> microseconds (a bare number is seconds)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(us|ms|s)?\s*", str(text))
    if not m:
        raise ValueError(f"bad time {text!r}: use seconds from the first event, e.g. 2.5, 2500ms or 2500000us")
    return float(m.group(1)) * _UNITS[m.group(2) or ""]


def clipped(records, start_us=None, end_us=None):
    """Yield the records of a window [start, end] (relative microseconds), with crossing intervals clipped.

    Metadata records (tensor names) are all kept: they are small and make the slice self-describing.
    Reading stops at the first record past the end, so a window near the start of a 1 GB trace is quick.
    """
    stacks = {}           # pid -> open begin records
    origin = None
    inside = start_us is None or start_us <= 0
    last_ts = None
    for r in records:
        ph = r["ph"]
        if ph == "M":
            yield r
            continue
        if origin is None:
            origin = r["ts"]
        t = r["ts"] - origin
        if end_us is not None and t > end_us:
            if not inside:  # nothing happened inside the window, but intervals may span it
                for pid, stack in stacks.items():
                    for b in stack:
                        yield {**b, "ts": origin + round(start_us)}
            cut = origin + round(end_us)
            for pid, stack in stacks.items():
                for _ in reversed(stack):
                    yield {"ph": "E", "ts": cut, "pid": pid}
            return
        if not inside and t >= start_us:
            inside = True
            for pid, stack in stacks.items():
                for b in stack:
                    yield {**b, "ts": origin + round(start_us)}
        if ph == "B":
            stacks.setdefault(r["pid"], []).append(r)
        elif ph == "E":
            stack = stacks.get(r["pid"])
            if stack:
                stack.pop()
            elif inside:
                continue  # an end whose begin is not in the file: it would confuse the viewer
        if inside:
            last_ts = r["ts"]
            yield r
    if inside and last_ts is not None:
        for pid, stack in stacks.items():  # a cut-off trace: close what is open at its last event
            for _ in reversed(stack):
                yield {"ph": "E", "ts": last_ts, "pid": pid}
