import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["ckpt_dir"], exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg["ckpt_dir"], "best.keras"),
                                            monitor="val_accuracy", save_best_only=True),
            keras.callbacks.TensorBoard(os.path.join(cfg["ckpt_dir"], "tb")),
        ]
    return cbs
