import os

import horovod.tensorflow.keras as hvd
import keras


def compile_for_horovod(model, cfg):
    opt = keras.optimizers.AdamW(learning_rate=cfg.lr * hvd.size(), weight_decay=cfg.weight_decay)
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="binary_crossentropy", metrics=["accuracy"])
    return model


def make_callbacks(cfg):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "revsent-{epoch:02d}.keras")))
    return cbs
