import math

import numpy as np
import keras


class SpecSequence(keras.utils.PyDataset):
    """Batches of log-mel crops for one worker: every world-th item of the index list."""

    def __init__(self, mels, labels, indices, batch_size, rank=0, world=1, train=True, **kw):
        super().__init__(**kw)
        self.mels, self.labels = mels, labels
        self.indices = np.asarray(indices)[rank::world]
        self.batch_size, self.train = batch_size, train

    def __len__(self):
        return math.ceil(len(self.indices) / self.batch_size)

    def __getitem__(self, i):
        idx = self.indices[i * self.batch_size:(i + 1) * self.batch_size]
        x = self.mels[idx]
        if self.train:
            shift = np.random.randint(0, x.shape[2] // 4)
            x = np.roll(x, shift, axis=2)
        return x[..., None], self.labels[idx]

    def on_epoch_end(self):
        if self.train:
            np.random.shuffle(self.indices)
