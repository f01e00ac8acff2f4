"""Step 3 from the batches themselves: did the ranks each take their own part of what the sequential script takes?

Two things are judged, from what both runs drew (numpy-free: the recorded digests and counts):
- overlap: samples (named by a digest of their bytes, or by the sampler's index) that two ranks both drew in
  the compared steps, against the number that independent random draws from the same data would share
  (Horovod's own idiom, each rank shuffling all the data by itself, shares about n_a * n_b / U samples of U);
  more than that plus 4 standard deviations (and 3) is no accident: the ranks read the same data in the
  same order (a shuffle seeded alike, no shard at all), or from the same part of it.
- volume: the samples one pass of each rank's pipeline holds, added over the ranks, against one pass of
  the sequential script's. About 1: each its own part. N: every rank takes a whole pass (the steps or the
  data not divided by hvd.size()). 1/N: samples are missed (the data divided twice).
"""
import math
from typing import NamedTuple


class Fault(NamedTuple):
    what: str            # one line for the report
    samples: list        # up to a few sample names, for the report
    kind: str            # "overlap" | "volume"


def judge(hvd, steps, seq_own):
    """[Fault] for step 3 (empty when the ranks' batches look like parts of one pass)."""
    faults = []
    drawn = {r: _drawn(hvd, r, steps) for r in range(hvd.ranks)}
    names = _namer(hvd)
    for a in range(hvd.ranks):
        for b in range(a + 1, hvd.ranks):
            fault = _overlap(hvd, a, b, drawn[a], drawn[b], names)
            if fault:
                faults.append(fault)
    fault = _volume(hvd, seq_own)
    if fault:
        faults.append(fault)
    return faults


def _drawn(hvd, rank, steps):
    """{sample id: first step} of the samples this rank's training batches held in steps 1..steps."""
    out = {}
    for k in range(1, steps + 1):
        ys = hvd.yields(rank, k)
        for j in hvd.training(rank, k):
            y = ys[j]
            ids = [f"i{i}" for i in y["index"]] if y.get("index") else y.get("rows", [])
            for s in ids:
                out.setdefault(s, k)
    return out


def _universe(hvd, rank, n):
    """How many distinct samples this rank's first n draws could have come from."""
    ys = [y for k in sorted(int(w) for w in hvd.records[rank].get("yields", {})) for y in hvd.yields(rank, k)]
    size = next((y.get("universe") for y in ys if y.get("universe")), None)
    buffer = next((y.get("shuffle_buffer") for y in ys if y.get("shuffle_buffer")), None)
    if size and buffer:
        return min(size, buffer + n)
    return size or (buffer + n if buffer else None)


def _overlap(hvd, a, b, da, db, names):
    common = sorted(set(da) & set(db), key=lambda s: (da[s], s))
    if not common:
        return None
    universe = min(filter(None, (_universe(hvd, a, len(da)), _universe(hvd, b, len(db)))), default=None)
    expected = len(da) * len(db) / universe if universe else 0.0
    if len(common) <= expected + 4 * math.sqrt(expected) + 3:
        return None
    same = all(set(_step_ids(hvd, a, k)) == set(_step_ids(hvd, b, k)) for k in range(1, max(da.values()) + 1))
    how = "the same batches at every step" if same else f"{len(common)} of their {min(len(da), len(db))} samples"
    chance = f" (independent random draws would share about {expected:.0f})" if universe else ""
    shown = [names(s) for s in common[:5]]
    return Fault(f"ranks {a} and {b} trained on {how}{chance}, e.g. {', '.join(shown)}: the ranks read the "
                 "same data; give each rank its own part (shard by hvd.rank(), or shuffle with a different "
                 "seed per rank and divide the steps by hvd.size())", shown, "overlap")


def _step_ids(hvd, rank, k):
    ys = hvd.yields(rank, k)
    return [s for j in hvd.training(rank, k) for s in (ys[j].get("rows") or [])]


def _volume(hvd, seq_own):
    per_rank = []
    for r in range(hvd.ranks):
        ys = [hvd.yields(r, 1)[j] for j in hvd.training(r, 1)]
        per_rank.append(ys[-1].get("per_pass") if ys else None)
    own = [y for y in (seq_own or {}).get("1", []) if y.get("per_pass")]
    if None in per_rank or not own:
        return None
    seq = own[-1]["per_pass"]
    total = sum(per_rank)
    ratio = total / seq if seq else None
    if ratio is None or 0.67 <= ratio <= 1.5:
        return None
    if ratio > 1:
        what = (f"one pass of the ranks' data holds {total} samples in all, {ratio:.2g} x the sequential script's "
                f"{seq}: every rank takes a whole pass; divide the steps (take(n // hvd.size())) or the data "
                "(shard) by hvd.size()")
    else:
        what = (f"one pass of the ranks' data holds {total} samples in all, {ratio:.2g} x the sequential script's "
                f"{seq}: samples are missed (the data divided more than once?)")
    return Fault(what, [], "volume")


def _namer(hvd):
    """A readable name for a sample id: the sampler's index, else its row in a from_tensor_slices source."""
    where = {}
    for rec in hvd.records.values():
        for s, rows in enumerate(rec.get("sources") or []):
            for i, d in enumerate(rows):
                where.setdefault(d, (s, i))
        break

    def name(sample):
        if sample.startswith("i") and sample[1:].isdigit():
            return f"sample {sample[1:]}"
        if sample in where:
            s, i = where[sample]
            return f"row {i} of the data set's source" + (f" {s + 1}" if s else "")
        return f"sample {sample}"
    return name

