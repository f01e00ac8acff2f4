import numpy as np
import tensorflow as tf

ALPHABET = " abcdefghijklmnopqrstuvwxyz'"
CHAR_TO_ID = {c: i + 1 for i, c in enumerate(ALPHABET)}  # 0 = CTC blank


def text_to_ids(text):
    return [CHAR_TO_ID[c] for c in text.lower() if c in CHAR_TO_ID]


def ids_to_text(ids):
    return "".join(ALPHABET[i - 1] for i in ids if 0 < i <= len(ALPHABET))


def load_split(npz_path):
    blob = np.load(npz_path, allow_pickle=True)
    feats = list(blob["features"])  # list of [T, n_mels] float32
    texts = [str(t) for t in blob["transcripts"]]
    return feats, texts


def make_dataset(feats, texts, batch_size, shard=(1, 0), shuffle=True, seed=0):
    def gen():
        for f, t in zip(feats, texts):
            yield f.astype("float32"), np.array(text_to_ids(t), dtype="int32")

    ds = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.TensorSpec([None, feats[0].shape[1]], tf.float32), tf.TensorSpec([None], tf.int32)))
    ds = ds.shard(*shard)
    if shuffle:
        ds = ds.shuffle(2048, seed=seed)
    return ds.padded_batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
