import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def build(initial_lr, warmup_epochs, model_dir, steps_per_epoch):
    cbs = [
        # rank 0's initial weights go to everybody
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # average logs (loss, accuracy, val_*) over workers before other callbacks see them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr,
                                                 warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(model_dir, exist_ok=True)
        cbs.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(model_dir, "ckpt-{epoch:03d}.weights.h5"), save_weights_only=True))
        cbs.append(tf.keras.callbacks.TensorBoard(os.path.join(model_dir, "logs")))
    return cbs
