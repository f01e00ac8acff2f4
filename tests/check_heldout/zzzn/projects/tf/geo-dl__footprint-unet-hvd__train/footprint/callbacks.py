import os

import keras
import horovod.tensorflow as hvd


class SyncInitialWeights(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        hvd.broadcast_variables(self.model.variables, root_rank=0)


class LinearWarmup(keras.callbacks.Callback):
    """ramp lr from lr/size to lr over the first epochs (per batch)"""

    def __init__(self, target_lr, warmup_steps):
        super().__init__()
        self.target_lr, self.warmup_steps, self.step = target_lr, warmup_steps, 0

    def on_train_batch_begin(self, batch, logs=None):
        if self.step <= self.warmup_steps:
            start = self.target_lr / hvd.size()
            lr = start + (self.target_lr - start) * self.step / max(self.warmup_steps, 1)
            self.model.optimizer.learning_rate.assign(lr)
        self.step += 1


def make_callbacks(cfg, target_lr, steps_per_epoch):
    os.makedirs(cfg.out, exist_ok=True)
    return [
        SyncInitialWeights(),
        LinearWarmup(target_lr, cfg.warmup_epochs * steps_per_epoch),
        keras.callbacks.ModelCheckpoint(os.path.join(cfg.out, "best_iou.keras"), monitor="val_iou",
                                        mode="max", save_best_only=True),
        keras.callbacks.TerminateOnNaN(),
    ]
