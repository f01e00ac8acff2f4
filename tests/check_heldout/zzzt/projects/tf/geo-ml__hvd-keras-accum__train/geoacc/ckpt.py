import os

import keras

from .dist import leader


class EveryN(keras.callbacks.Callback):
    def __init__(self, workdir, n):
        super().__init__()
        self.workdir, self.n = workdir, n

    def on_epoch_end(self, epoch, logs=None):
        if leader() and (epoch + 1) % self.n == 0:
            os.makedirs(self.workdir, exist_ok=True)
            self.model.save_weights(os.path.join(self.workdir, "ep%03d.weights.h5" % (epoch + 1)))
