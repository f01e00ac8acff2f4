import numpy as np
import tensorflow as tf


class RadarSequences:
    """Radar frames stored as uint8 arrays [N, T, H, W] per split in one npz."""

    def __init__(self, path, n_in, n_out):
        self._arrays = np.load(path)
        self.n_in, self.n_out = n_in, n_out

    def num_sequences(self, split):
        return self._arrays[split].shape[0]

    def pipeline(self, split, batch, part, num_parts):
        seqs = self._arrays[split]
        ds = tf.data.Dataset.from_tensor_slices(seqs)
        # worker `part` keeps every num_parts-th sequence
        ds = ds.enumerate().filter(lambda i, _: i % num_parts == part).map(lambda _, s: s)
        ds = ds.map(self._split_frames, num_parallel_calls=tf.data.AUTOTUNE)
        if split == "train":
            ds = ds.shuffle(1000).repeat()
        return ds.batch(batch, drop_remainder=split == "train").prefetch(2)

    def _split_frames(self, seq):
        seq = tf.cast(seq, tf.float32)[..., None] / 255.0
        return seq[: self.n_in], seq[self.n_in: self.n_in + self.n_out]
