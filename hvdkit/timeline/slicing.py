"""Writing a time window of a trace as a small, valid trace that chrome://tracing and Perfetto open."""
import json
import os
import tempfile

from hvdkit.timeline.parse import Trace
from hvdkit.timeline.window import clipped


def slice_trace(path, out, start_us=None, end_us=None):
    """Write the records of [start, end] (microseconds from the first event) of `path` to `out`.

    The output is a closed JSON array, written to a temporary file first so a failure leaves `out` as it
    was. Returns (events written, metadata records written).
    """
    trace = Trace(path)
    out = os.path.abspath(out)
    events = meta = 0
    fd, tmp = tempfile.mkstemp(prefix=".slice-", suffix=".json", dir=os.path.dirname(out))
    try:
        with os.fdopen(fd, "w") as f:
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
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    return events, meta
