"""Churn model (tabular MLP) trained data-parallel with Horovod + Keras.

The input pipeline keeps the tf.distribute signature (input_fn(ctx)) so the
same code can go back to MultiWorkerMirroredStrategy if we ever need it.
"""
import dataclasses
import logging
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

log = logging.getLogger("churn")


@dataclasses.dataclass
class Config:
    train_csv: str = "data/churn_train.csv"
    valid_csv: str = "data/churn_valid.csv"
    out_dir: str = "artifacts"
    batch_size: int = 1024          # per worker
    lr: float = 1e-3
    epochs: int = 30
    warmup_epochs: int = 3
    hidden: tuple = (256, 128, 64)
    dropout: float = 0.2


def setup_logging(rank):
    fmt = f"[%(asctime)s][rank {rank}] %(levelname)s %(message)s"
    logging.basicConfig(stream=sys.stdout, format=fmt,
                        level=logging.INFO if rank == 0 else logging.WARNING)


def load_csv(path):
    arr = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float32)
    return arr[:, :-1], arr[:, -1:]


def input_fn(path, batch_size, ctx, training):
    x, y = load_csv(path)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    ds = tf.data.Dataset.from_tensor_slices(((x - mu) / sd, y))
    ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    if training:
        ds = ds.shuffle(50_000, seed=ctx.input_pipeline_id).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE), len(x)


def build_model(n_features, cfg):
    inp = keras.Input((n_features,))
    h = inp
    for units in cfg.hidden:
        h = keras.layers.Dense(units, activation="gelu")(h)
        h = keras.layers.Dropout(cfg.dropout)(h)
    out = keras.layers.Dense(1, activation="sigmoid")(h)
    return keras.Model(inp, out)


def run(cfg: Config):
    hvd.init()
    setup_logging(hvd.rank())
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    ctx = tf.distribute.InputContext(num_input_pipelines=hvd.size(),
                                     input_pipeline_id=hvd.rank(),
                                     num_replicas_in_sync=hvd.size())
    train_ds, n_train = input_fn(cfg.train_csv, cfg.batch_size, ctx, training=True)
    valid_ds, _ = input_fn(cfg.valid_csv, cfg.batch_size, ctx, training=False)
    steps = n_train // (cfg.batch_size * hvd.size())

    model = build_model(train_ds.element_spec[0].shape[-1], cfg)
    scaled_lr = cfg.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), "accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps, verbose=1),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(cfg.out_dir, "churn-{epoch:02d}.keras")))
        callbacks.append(keras.callbacks.TensorBoard(os.path.join(cfg.out_dir, "tb")))

    hist = model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs,
                     validation_data=valid_ds, callbacks=callbacks,
                     verbose=1 if hvd.rank() == 0 else 0)
    log.info("final val_auc=%.4f", hist.history["val_auc"][-1])
    return hist


if __name__ == "__main__":
    run(Config())
