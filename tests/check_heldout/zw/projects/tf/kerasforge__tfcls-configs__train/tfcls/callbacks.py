import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, workdir, steps_per_epoch, is_chief):
    opt_cfg, train_cfg = cfg["optimizer"], cfg["train"]
    callbacks = [
        # rank 0's initial weights go to everyone before the first step
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # val loss/accuracy are computed on each worker's shard: average them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=opt_cfg["learning_rate"] * hvd.size(),
                                                 warmup_epochs=train_cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=int(is_chief)),
    ]
    if is_chief:
        os.makedirs(workdir, exist_ok=True)
        callbacks += [
            tf.keras.callbacks.ModelCheckpoint(os.path.join(workdir, "epoch_{epoch:03d}.weights.h5"),
                                               save_weights_only=True, save_freq="epoch"),
            tf.keras.callbacks.CSVLogger(os.path.join(workdir, "log.csv")),
        ]
    return callbacks
