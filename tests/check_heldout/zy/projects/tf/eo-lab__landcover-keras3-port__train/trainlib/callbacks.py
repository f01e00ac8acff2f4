import os

import keras
import horovod.tensorflow.keras as hvd

from .compat import weights_file


class RootCheckpoint(keras.callbacks.Callback):
    """Save weights every `every` epochs, from the first worker only."""

    def __init__(self, out_dir, every=1):
        super().__init__()
        self.out_dir, self.every = out_dir, every

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() != 0 or (epoch + 1) % self.every:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        self.model.save_weights(weights_file(os.path.join(self.out_dir, "epoch%03d.h5" % (epoch + 1))))


def horovod_callbacks(initial_lr, warmup_epochs, steps_per_epoch, out_dir, save_every):
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
        RootCheckpoint(out_dir, save_every),
    ]
