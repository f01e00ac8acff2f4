import os

import keras
import horovod.tensorflow.keras as hvd


def distributed_callbacks(initial_lr, warmup_epochs, ckpt_path=None):
    """Fresh Horovod callbacks for one `fit` call (never share them between models)."""
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs),
    ]
    if hvd.rank() == 0 and ckpt_path:
        os.makedirs(os.path.dirname(ckpt_path) or ".", exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(ckpt_path, save_weights_only=True))
    return cbs
