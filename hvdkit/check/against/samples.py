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
    samples: list        # up to a few sample ids
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
    shown = names(common[:5])
    return Fault(f"ranks {a} and {b} trained on {how}{chance}, e.g. {shown}: the ranks read the same data; give "
                 "each rank its own part (DistributedSampler, ds.shard(hvd.size(), hvd.rank())), or shuffle with a "
                 "different seed on each rank and divide the steps by hvd.size()", common[:5], "overlap")


def _step_ids(hvd, rank, k):
    ys = hvd.yields(rank, k)
    return [s for j in hvd.training(rank, k) for s in (ys[j].get("rows") or [])]


def _volume(hvd, seq_own):
    """One pass of every rank's pipeline together against one pass of the sequential script's, each as a share
    of the data set it draws from when that is known (a script may make its data set per rank)."""
    per_rank = []
    for r in range(hvd.ranks):
        ys = [hvd.yields(r, 1)[j] for j in hvd.training(r, 1)]
        per_rank.append((ys[-1].get("per_pass"), ys[-1].get("universe")) if ys else (None, None))
    own = [y for y in (seq_own or {}).get("1", []) if y.get("per_pass")]
    if any(p is None for p, _ in per_rank) or not own:
        return None
    seq, seq_universe = own[-1]["per_pass"], own[-1].get("universe")
    total = sum(p for p, _ in per_rank)
    universes = {u for _, u in per_rank}
    if seq_universe and None not in universes and len(universes) == 1:
        ratio = (total / universes.pop()) / (seq / seq_universe)
    else:
        ratio = total / seq if seq else None
    if ratio is None or 0.67 <= ratio <= 1.5:
        return None
    if ratio > 1:
        what = (f"one pass of the ranks' data holds {total} samples in all, {ratio:.2g} x what one pass of the "
                f"sequential script's holds ({seq}): every rank takes a whole pass; give each rank its own part "
                "(DistributedSampler, ds.shard) or divide the steps by hvd.size() (take(n // hvd.size()))")
    else:
        what = (f"one pass of the ranks' data holds {total} samples in all, {ratio:.2g} x what one pass of the "
                f"sequential script's holds ({seq}): samples are missed (the data divided more than once?)")
    return Fault(what, [], "volume")


def _namer(hvd):
    """Readable names for sample ids: the sampler's indices, else rows of a from_tensor_slices source."""
    where = {}
    for rec in hvd.records.values():
        for s, rows in enumerate(rec.get("sources") or []):
            for i, d in enumerate(rows):
                where.setdefault(d, (s, i))
        break

    def names(samples):
        if all(x.startswith("i") and x[1:].isdigit() for x in samples):
            return "samples " + ", ".join(x[1:] for x in samples) + " of the data set"
        if all(x in where for x in samples):
            sources = {where[x][0] for x in samples}
            return ("rows " + ", ".join(str(where[x][1]) for x in samples) + " of the arrays given to "
                    + ("from_tensor_slices" if sources == {0} else "from_tensor_slices (source "
                       + ", ".join(str(s + 1) for s in sorted(sources)) + ")"))
        return "the samples whose bytes hash to " + ", ".join(samples)
    return names
