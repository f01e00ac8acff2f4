import os

import keras
import horovod.tensorflow as hvd


class BroadcastOnce(keras.callbacks.Callback):
    """rank 0's weights and optimizer slots to everybody, after the first batch"""

    def __init__(self):
        super().__init__()
        self.done = False

    def on_train_batch_end(self, batch, logs=None):
        if self.done:
            return
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.model.optimizer.variables, root_rank=0)
        self.done = True


class PolyLRPerIter(keras.callbacks.Callback):
    def __init__(self, base_lr, total_iters, power=0.9):
        super().__init__()
        self.base_lr, self.total_iters, self.power = base_lr, total_iters, power
        self.it = 0

    def on_train_batch_begin(self, batch, logs=None):
        lr = self.base_lr * (1 - min(self.it, self.total_iters - 1) / self.total_iters) ** self.power
        self.model.optimizer.learning_rate.assign(lr)
        self.it += 1


def build_callbacks(cfg, base_lr, total_iters):
    cbs = [BroadcastOnce(), PolyLRPerIter(base_lr, total_iters, cfg.poly_power)]
    if hvd.rank() == 0:
        os.makedirs(cfg.workdir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.workdir, "best_miou.weights.h5"),
                                            monitor="val_miou", mode="max", save_best_only=True,
                                            save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.workdir, "log.csv")),
        ]
    return cbs
