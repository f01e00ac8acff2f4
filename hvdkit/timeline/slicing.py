"""Writing a time window of a trace as a small, valid trace that chrome://tracing and Perfetto open."""
import json

from hvdkit.common.files import replacing
from hvdkit.timeline.parse import Trace, horovod_records
from hvdkit.timeline.window import clipped


class EmptyWindow(ValueError):
    pass


def slice_trace(path, out, start_us=None, end_us=None):
    """Write the records of [start, end] (microseconds from the first event) of `path` to `out`.

    The output is a closed JSON array, written to a temporary file first so a failure (or an empty window:
    EmptyWindow) leaves `out` as it was. Returns (events written, metadata records written).
    """
    trace = Trace(path)
    events = meta = 0
    with replacing(out) as tmp, open(tmp, "w") as f, horovod_records(trace, keep=(EmptyWindow,)):
        f.write("[\n")
        sep = ""
        for r in clipped(trace, start_us, end_us):
            f.write(sep + json.dumps(r, separators=(", ", ": ")))
            sep = ",\n"
            if r["ph"] == "M":
                meta += 1
            else:
                events += 1
        f.write("\n]\n")
        if not events:
            raise EmptyWindow("no event of the trace falls in the window")
    return events, meta
