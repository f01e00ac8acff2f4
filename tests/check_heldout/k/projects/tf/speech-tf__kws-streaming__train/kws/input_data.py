import hashlib
import os
import re

import tensorflow as tf

from . import LABELS

MAX_PER_CLASS = 2 ** 27 - 1


def which_set(filename, validation_pct=10, testing_pct=10):
    """Deterministic split by speaker hash, as in the Speech Commands reference code."""
    base = re.sub(r"_nohash_.*$", "", os.path.basename(filename))
    h = int(hashlib.sha1(base.encode()).hexdigest(), 16) % (MAX_PER_CLASS + 1)
    pct = h * 100.0 / MAX_PER_CLASS
    if pct < validation_pct:
        return "validation"
    if pct < validation_pct + testing_pct:
        return "testing"
    return "training"


def list_files(root):
    out = {"training": [], "validation": [], "testing": []}
    for word in sorted(os.listdir(root)):
        d = os.path.join(root, word)
        if not os.path.isdir(d) or word.startswith("_"):
            continue
        label = LABELS.index(word) if word in LABELS else 1
        for f in sorted(os.listdir(d)):
            if f.endswith(".wav"):
                out[which_set(f)].append((os.path.join(d, f), label))
    return out


def decode(path, label, clip_samples=16000):
    audio, _ = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1)
    audio = tf.squeeze(audio, -1)[:clip_samples]
    audio = tf.pad(audio, [[0, clip_samples - tf.shape(audio)[0]]])
    return audio, label


def make_dataset(pairs, batch_size, training):
    paths = [p for p, _ in pairs]
    labels = [l for _, l in pairs]
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    if training:
        ds = ds.shuffle(len(paths)).repeat()
    ds = ds.map(decode, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
