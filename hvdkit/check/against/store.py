"""Batches and tensors between the two runs: nested structures of numpy arrays, their digests, their files.

A batch is kept as the structure the data pipeline yielded (a tuple (images, labels), a dict, a list) with
every tensor turned into a numpy array; `union` concatenates the ranks' batches leaf by leaf along the first
axis, in rank order. Each sample (one row across every leaf) is named by a digest of its bytes, so two ranks
that drew the same sample can be told apart from two that drew different ones. Files live in the run's
scratch directory and are read once, by the other run of the same check.
"""
import hashlib
import json
import os
import pickle

import numpy as np

from hvdkit.common import files


def to_numpy(element, leaf):
    """`element` (tuples, lists, dicts of tensors) with each tensor turned into numpy by `leaf(x)` (None: kept)."""
    if isinstance(element, dict):
        return {k: to_numpy(v, leaf) for k, v in element.items()}
    if isinstance(element, (tuple, list)) and not hasattr(element, "_fields"):
        return type(element)(to_numpy(v, leaf) for v in element)
    if isinstance(element, tuple):  # a namedtuple
        return type(element)(*(to_numpy(v, leaf) for v in element))
    out = leaf(element)
    return element if out is None else out


def from_numpy(struct, leaf):
    """The inverse: each numpy array turned into the framework's tensor by `leaf(array)`."""
    if isinstance(struct, dict):
        return {k: from_numpy(v, leaf) for k, v in struct.items()}
    if isinstance(struct, tuple) and hasattr(struct, "_fields"):
        return type(struct)(*(from_numpy(v, leaf) for v in struct))
    if isinstance(struct, (tuple, list)):
        return type(struct)(from_numpy(v, leaf) for v in struct)
    return leaf(struct) if isinstance(struct, np.ndarray) else struct


def leaves(struct):
    if isinstance(struct, dict):
        return [x for k in sorted(struct, key=str) for x in leaves(struct[k])]
    if isinstance(struct, (tuple, list)):
        return [x for v in struct for x in leaves(v)]
    return [struct]


def arrays(struct):
    return [x for x in leaves(struct) if isinstance(x, np.ndarray)]


def size(struct):
    """Samples in a batch: the first axis of its first array with one (None: no batched array)."""
    batched = [a for a in arrays(struct) if a.ndim >= 1]
    return int(batched[0].shape[0]) if batched else None


def per_pass(meta, n):
    """Samples one pass of a batch's pipeline holds: the loader's count, or its batches x this batch's size."""
    if meta.get("per_pass") is None and meta.get("pass_batches") and n:
        return meta["pass_batches"] * n
    return meta.get("per_pass")


def signature(struct):
    """What must match for a batch to stand in for another: the structure, dtypes and per-sample shapes."""
    if isinstance(struct, dict):
        return ("dict",) + tuple((str(k), signature(struct[k])) for k in sorted(struct, key=str))
    if isinstance(struct, (tuple, list)):
        return ("seq", len(struct)) + tuple(signature(v) for v in struct)
    if isinstance(struct, np.ndarray):
        return (struct.dtype.str, tuple(struct.shape[1:]))
    return (type(struct).__name__,)


def row_digests(struct):
    """One short digest per sample: the bytes of its row in every batched leaf."""
    n = size(struct)
    if n is None:
        return []
    rows = [np.ascontiguousarray(a).reshape(n, -1) for a in arrays(struct) if a.ndim >= 1 and a.shape[0] == n]
    out = []
    for i in range(n):
        h = hashlib.sha1()
        for r in rows:
            h.update(r[i].tobytes())
        out.append(h.hexdigest()[:12])
    return out


def digest(array):
    return hashlib.sha1(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def union(structs):
    """The ranks' batches as one: arrays concatenated on the first axis in rank order, lists joined."""
    first = structs[0]
    if isinstance(first, dict):
        return {k: union([s[k] for s in structs]) for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(union([s[i] for s in structs]) for i in range(len(first))))
    if isinstance(first, (tuple, list)):
        parts = [union([s[i] for s in structs]) for i in range(len(first))]
        return type(first)(parts)
    if isinstance(first, np.ndarray) and first.ndim >= 1:
        return np.concatenate(structs, axis=0)
    return first


def reverse_rows(struct):
    """The batch with its samples in reverse order (every batched leaf)."""
    n = size(struct)
    return to_numpy(struct, lambda a: a[::-1].copy() if isinstance(a, np.ndarray) and a.ndim >= 1 and
                    a.shape[0] == n else None)


# --- files in the scratch directory -----------------------------------------------------------------------

def save_pickle(path, obj):
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def load_pickle(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def save_arrays(path, tensors):
    """[array] -> one .npz, uncompressed (read once, by the other run, moments later)."""
    np.savez(path, **{f"t{i:05d}": a for i, a in enumerate(tensors)})


def load_arrays(path):
    with np.load(path) as z:
        return [z[k] for k in sorted(z.files)]


def write_json(path, obj):
    files.write_json(path, obj, indent=None)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def rank_dir(out, rank):
    path = os.path.join(out, f"rank-{rank}")
    os.makedirs(path, exist_ok=True)
    return path


def digest_structure(struct):
    """One digest of every array and number in a structure (an optimizer's state)."""
    h = hashlib.sha1()
    for x in leaves(struct):
        h.update(np.ascontiguousarray(x).tobytes() if isinstance(x, np.ndarray) else repr(x).encode())
    return h.hexdigest()[:16]
