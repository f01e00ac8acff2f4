import os

import keras
import horovod.tensorflow.keras as hvd

OPTIMIZERS = {
    "adam": lambda lr: keras.optimizers.Adam(learning_rate=lr),
    "sgd": lambda lr: keras.optimizers.SGD(learning_rate=lr, momentum=0.9),
}


def make_optimizer(ocfg):
    base = OPTIMIZERS[ocfg.name](ocfg.lr * hvd.size())
    return hvd.DistributedOptimizer(base)


def make_callbacks(cfg, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.optim.lr * hvd.size(),
                                                 warmup_epochs=cfg.optim.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.train.out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.train.out_dir, "best.weights.h5"),
                                                   monitor="val_acc", mode="max", save_best_only=True,
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.train.out_dir, "history.csv")))
    return cbs
