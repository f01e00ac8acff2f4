"""One step of the runs side by side: the weights each reached from the same weights (numpy only).

All runs start step k from rank 0's weights before it (the replaying runs are put there), so what differs
after the step is the step itself: its update u = after - before, in the Horovod run (u_h), in the
sequential run on the union of the ranks' batches at the Horovod LR (u_s), and in the same run with the
union's samples in another order (u_r). |u_s - u_r| is what the order of the float sums alone does to
this step (tolerance.py). `scale` is the least-squares c in u_h = c * u_s over every tensor: 1 when the
gradients were averaged; N when they were summed over N ranks with an optimizer whose step grows with the
gradient (SGD, momentum); still 1 for Adam-like optimizers, whose step does not depend on the gradient's scale.
"""
import os

import numpy as np

from hvdkit.check.against import store


def steps(hvd, seq, alt, done):
    """{k: {"tensors": [row per tensor], "scale": c, "loss": row or None}} for the steps both replaying runs
    (run.Replay) completed."""
    out = {}
    for k in done:
        paths = [os.path.join(run.dir, f"after-{k}.npz") for run in (seq, alt)]
        if all(os.path.exists(p) for p in paths) and hvd.weights_before(k):
            rows, scale = step(hvd.weights_before(k), hvd.weights_after(k), *map(store.load_arrays, paths))
            out[k] = {"tensors": rows, "scale": scale, "loss": loss(hvd, k, *(r.out["steps"][str(k)]["loss"]
                                                                              for r in (seq, alt)))}
    return out


def loss(hvd, k, seq, alt):
    """The loss as one more row: the ranks' losses weighted by their batch sizes (the union's mean, for a
    loss that is a mean over its batch) against the replaying runs' (None when a run reported none)."""
    parts = []
    for r in range(hvd.ranks):
        values, t = hvd.records[r]["loss"].get(str(k)), hvd.training(r, k)
        if not values or not t:
            return None
        parts.append((values[-1], hvd.yields(r, k)[t[-1]]["n"] or 0))
    total = sum(n for _, n in parts)
    if not (seq and alt and total):
        return None
    h, s, r = sum(v * n for v, n in parts) / total, seq[-1], alt[-1]
    return {"max_abs": abs(h - s), "noise": abs(s - r), "max_update": abs(s), "max_weight": 0.0,
            "max_abs_scaled": abs(h - s), "noise_scaled": abs(s - r), "horovod": h, "sequential": s}


def step(before, hvd_after, seq_after, alt_after):
    """[{max_abs, noise, max_update, max_weight, ...} per tensor] and the scale c (see the module's doc)."""
    rows, dot, ss = [], 0.0, 0.0
    for b, h, s, r in zip(before, hvd_after, seq_after, alt_after):
        b, h, s, r = (np.asarray(x, dtype=np.float64) for x in (b, h, s, r))
        uh, us = h - b, s - b
        dot += float(np.vdot(uh, us))
        ss += float(np.vdot(us, us))
        rows.append({"numel": int(b.size), "max_abs": _max(h - s), "noise": _max(s - r), "max_update": _max(us),
                     "max_update_hvd": _max(uh), "max_weight": _max(b)})
    scale = dot / ss if ss > 0 else 1.0
    for row, b, h, s, r in zip(rows, before, hvd_after, seq_after, alt_after):
        b, h, s, r = (np.asarray(x, dtype=np.float64) for x in (b, h, s, r))
        row["max_abs_scaled"] = _max((h - b) - scale * (s - b))
        row["noise_scaled"] = scale * row["noise"]
    return rows, scale


def _max(x):
    return float(np.max(np.abs(x))) if x.size else 0.0
