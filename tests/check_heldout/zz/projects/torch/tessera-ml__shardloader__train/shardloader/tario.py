import io
import tarfile

import numpy as np


def _split_key(name):
    base = name.rsplit("/", 1)[-1]
    key, _, ext = base.partition(".")
    return key, ext


def _decode(ext, payload):
    if ext.endswith("npy"):
        return np.load(io.BytesIO(payload), allow_pickle=False)
    if ext.endswith("cls"):
        return int(payload.decode().strip())
    return payload


def iter_tar_samples(path):
    """Yield dicts grouping consecutive tar members that share a key."""
    current, sample = None, {}
    with tarfile.open(path, "r") as tf:
        for member in tf:
            if not member.isfile():
                continue
            key, ext = _split_key(member.name)
            if current is not None and key != current:
                yield sample
                sample = {}
            current = key
            sample["__key__"] = key
            sample[ext] = _decode(ext, tf.extractfile(member).read())
    if sample:
        yield sample
