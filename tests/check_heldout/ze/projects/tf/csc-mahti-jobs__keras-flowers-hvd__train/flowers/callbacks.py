import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def training_callbacks(cfg):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.lr * hvd.size(), warmup_epochs=2),
    ]
    if hvd.rank() == 0:
        ckpt_dir = os.path.join("checkpoints", cfg.job_id)
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "flowers-{epoch:02d}.weights.h5"),
                                                      save_weights_only=True, save_best_only=True,
                                                      monitor="val_accuracy"))
        cbs.append(tf.keras.callbacks.TensorBoard(log_dir=os.path.join("logs", cfg.job_id)))
    return cbs
