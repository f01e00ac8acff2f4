"""Metric averaging as allreduced (sum, count) pairs: correct when ranks see different numbers of samples.

A mean of per-rank means weights a rank with 10 samples like one with 1000; summing the sums and the
counts, then dividing once, gives the mean over every sample the job saw.
"""


def pack(metrics, to_float=float):
    """{name: (sum, count)} -> (names, flat list [s0, c0, s1, c1, ...]) for a single allreduce.

    `to_float` turns a framework scalar (a 0-d tensor) into a Python float.
    """
    if not isinstance(metrics, dict) or not metrics:
        raise ValueError("average_metrics takes a non-empty dict {name: (sum, count)}")
    names = sorted(metrics)
    flat = []
    for name in names:
        value = metrics[name]
        try:
            total, count = value
        except (TypeError, ValueError):
            raise ValueError(f"metric {name!r} must be a (sum, count) pair, got {value!r}") from None
        flat.extend((to_float(total), to_float(count)))
    return names, flat


def unpack(names, reduced):
    """Summed flat list -> {name: global mean}; a metric nobody counted is nan, not a ZeroDivisionError."""
    out = {}
    for i, name in enumerate(names):
        total, count = float(reduced[2 * i]), float(reduced[2 * i + 1])
        out[name] = total / count if count else float("nan")
    return out
