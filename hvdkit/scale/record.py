"""The JSON run record: what one launch of a benchmark measured, for `hvdkit scale` to tabulate.

A record is one JSON object written by rank 0 (format documented in docs/scale.md):

    required  format "hvdkit-run-record", version 1, ranks (int >= 1), unit (what is counted, e.g. "images"),
              rank_rates (one units/s figure per rank, index = rank), total_rate (their sum, as allreduced)
    derived   rate_mean, rate_std, slowest_rank, fastest_rank ({"rank", "rate"}) -- filled in by build()
    optional  program, framework, created, local_size, threads_per_rank, cpu_count, oversubscribed,
              batch_size (per rank), global_batch_size, untimed_steps, timed_steps, step_times (per rank,
              seconds), step_rate_mean / step_rate_std (per rank), config, versions, ... (kept as given)

`hvdkit scale` tells each run where to write through the environment variable HVDKIT_RECORD (and, for
strong scaling, the global batch through HVDKIT_GLOBAL_BATCH_SIZE): any program that writes this record
there can be swept. hvdkit's meters (hvdkit.scale.meter: the examples' Meter, hk.progress) write it.
"""
import json
import math
import os
import platform
import statistics
import sys
import time

from hvdkit.common import files
from hvdkit.common.errors import HvdkitError

FORMAT = "hvdkit-run-record"
VERSION = 1
ENV = "HVDKIT_RECORD"
GLOBAL_BATCH_ENV = "HVDKIT_GLOBAL_BATCH_SIZE"
# The total is an allreduced float sum, the check re-adds the per-rank figures in another order.
_SUM_TOLERANCE = 1e-6


class RecordError(HvdkitError, ValueError):
    pass


def build(ranks, rank_rates, total_rate, unit="images", **fields):
    """A validated record from the per-rank rates and their allreduced sum, plus any other fields."""
    rates = [float(r) for r in rank_rates]
    slow = min(range(len(rates)), key=rates.__getitem__) if rates else 0
    fast = max(range(len(rates)), key=rates.__getitem__) if rates else 0
    record = {
        "format": FORMAT, "version": VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **fields,
        "ranks": int(ranks), "unit": unit,
        "rank_rates": rates, "total_rate": float(total_rate),
        "rate_mean": statistics.fmean(rates) if rates else float("nan"),
        "rate_std": statistics.pstdev(rates) if rates else float("nan"),
        "slowest_rank": {"rank": slow, "rate": rates[slow] if rates else None},
        "fastest_rank": {"rank": fast, "rate": rates[fast] if rates else None},
    }
    validate(record)
    return record


def validate(record, where="record"):
    """Raise RecordError (one line) unless `record` has the required fields with consistent values."""
    if not isinstance(record, dict):
        raise RecordError(f"{where} is not a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"{where} is not an hvdkit run record (format is {record.get('format')!r}, "
                          f"expected {FORMAT!r}; see docs/scale.md)")
    if record.get("version") != VERSION:
        raise RecordError(f"{where} has record version {record.get('version')!r}; this hvdkit reads version {VERSION}")
    for key in ("ranks", "unit", "rank_rates", "total_rate"):
        if key not in record:
            raise RecordError(f"{where} lacks {key!r} (see docs/scale.md for the format)")
    ranks, rates, total = record["ranks"], record["rank_rates"], record["total_rate"]
    if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
        raise RecordError(f"{where}: ranks must be an integer >= 1, got {ranks!r}")
    if not isinstance(rates, list) or len(rates) != ranks:
        raise RecordError(f"{where}: rank_rates must list one rate per rank ({ranks}), "
                          f"got {len(rates) if isinstance(rates, list) else type(rates).__name__}")
    if not all(_positive(r) for r in rates) or not _positive(total):
        raise RecordError(f"{where}: rates must be finite numbers > 0")
    if not math.isclose(total, math.fsum(rates), rel_tol=_SUM_TOLERANCE):
        raise RecordError(f"{where}: total_rate {total} is not the sum of rank_rates ({math.fsum(rates)})")
    step_times = record.get("step_times")
    if step_times is not None and (not isinstance(step_times, list) or len(step_times) != ranks):
        raise RecordError(f"{where}: step_times must hold one list of seconds per rank")
    return record


def _positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def write(path, record):
    """Validate and write atomically (a reader never sees half a record); returns the path."""
    validate(record)
    return files.write_json(path, record)


def read(path):
    """The validated record at `path`, or RecordError saying what is wrong with it."""
    try:
        with open(path) as f:
            record = json.load(f)
    except FileNotFoundError:
        raise RecordError(f"no run record at {path}") from None
    except (OSError, ValueError) as exc:
        raise RecordError(f"cannot read run record {path}: {exc}") from None
    return validate(record, where=str(path))


def versions():
    """Python's, hvdkit's and NumPy's versions, and those of the frameworks and Horovod this process imported."""
    import hvdkit
    out = {"python": platform.python_version(), "hvdkit": hvdkit.__version__}
    for name in ("numpy", "torch", "tensorflow", "keras", "horovod"):
        version = getattr(sys.modules.get(name), "__version__", None)
        if version:
            out[name] = version
    return out


def default_path():
    """Where a benchmark should write its record when not told otherwise: $HVDKIT_RECORD, or None."""
    return os.environ.get(ENV) or None


def global_batch_size():
    """The global batch `hvdkit scale --strong` asks for ($HVDKIT_GLOBAL_BATCH_SIZE), or None."""
    value = os.environ.get(GLOBAL_BATCH_ENV)
    if not value:
        return None
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise RecordError(f"{GLOBAL_BATCH_ENV}={value!r} is not a whole number >= 1")
    return n
