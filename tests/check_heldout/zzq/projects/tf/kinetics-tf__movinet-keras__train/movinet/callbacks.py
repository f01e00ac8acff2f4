import os
import keras
import horovod.tensorflow.keras as hvd


def step_decay(cfg, peak_lr):
    def schedule(epoch, lr):
        if epoch < cfg.warmup_epochs:
            return lr  # the warmup callback owns these epochs
        return peak_lr * 0.1 ** sum(epoch >= e for e in cfg.decay_epochs)
    return schedule


def build_callbacks(cfg, peak_lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=peak_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.LearningRateScheduler(step_decay(cfg, peak_lr)),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.ckpt_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.ckpt_dir, "log.csv")))
    return cbs
