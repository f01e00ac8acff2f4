"""NormFace-style embedding training with class-balanced (P x K) batches and Keras fit.

`run(cfg)` is also called from our sweep launcher (sweeps/launch.py, not part of this file) with
a dict of overrides; `python run_fit.py '{"epochs": 5}'` works the same way.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
import keras
from keras import layers, ops
import horovod.tensorflow.keras as hvd

DEFAULTS = dict(
    data="data/inshop64.npz",
    P=32, K=4,
    dim=256, scale=16.0,
    base_lr=2e-4,            # for one worker with one P x K batch
    warmup_epochs=2,
    epochs=50,
    out="out/normface",
    recall_ks=(1, 10, 20),
)


class NormSoftmaxHead(layers.Layer):
    def __init__(self, n_classes, scale, **kw):
        super().__init__(**kw)
        self.n_classes, self.scale = n_classes, scale

    def build(self, shape):
        self.proxies = self.add_weight(shape=(shape[-1], self.n_classes), initializer="random_normal", name="proxies")

    def call(self, e):
        w = self.proxies / ops.norm(self.proxies, axis=0, keepdims=True)
        return self.scale * ops.matmul(e, w)


def balanced_batches(y, indices, P, K, seed):
    """Endless P x K index batches drawn from this worker's indices only."""
    rng = np.random.default_rng(seed)
    groups = {}
    for i in indices:
        groups.setdefault(int(y[i]), []).append(i)
    classes = [c for c, v in groups.items() if len(v) >= 2]
    while True:
        chosen = rng.choice(classes, P, replace=len(classes) < P)
        yield np.concatenate([rng.choice(groups[c], K, replace=len(groups[c]) < K) for c in chosen])


def recall_at_k(emb, labels, ks):
    sim = emb @ emb.T
    np.fill_diagonal(sim, -np.inf)
    top = np.argpartition(-sim, max(ks), axis=1)[:, :max(ks)]
    order = np.take_along_axis(sim, top, 1).argsort(1)[:, ::-1]
    top = np.take_along_axis(top, order, 1)
    hit = labels[top] == labels[:, None]
    return {k: float(hit[:, :k].any(1).mean()) for k in ks}


def run(cfg):
    cfg = {**DEFAULTS, **cfg}
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(cfg["data"])
    x, y = d["x_train"].astype("float32") / 255.0, d["y_train"].astype("int64")
    xt, yt = d["x_test"].astype("float32") / 255.0, d["y_test"].astype("int64")
    n_classes = int(y.max()) + 1

    # one shared permutation, cut into equal contiguous pieces (the remainder is dropped)
    perm = np.random.default_rng(0).permutation(len(y))
    per_worker = len(y) // hvd.size()
    mine = perm[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
    batches = balanced_batches(y, mine, cfg["P"], cfg["K"], seed=17 + hvd.rank())
    train_ds = tf.data.Dataset.from_generator(
        lambda: ((x[b], y[b]) for b in batches),
        output_signature=(tf.TensorSpec((None,) + x.shape[1:], tf.float32), tf.TensorSpec((None,), tf.int64)))
    steps = per_worker // (cfg["P"] * cfg["K"])

    backbone = keras.Sequential([
        keras.Input(x.shape[1:]),
        layers.Conv2D(64, 3, strides=2, padding="same", activation="relu"),
        layers.Conv2D(128, 3, strides=2, padding="same", activation="relu"),
        layers.Conv2D(256, 3, strides=2, padding="same", activation="relu"),
        layers.GlobalAveragePooling2D(), layers.Dense(cfg["dim"]), layers.UnitNormalization(),
    ], name="embedder")
    model = keras.Sequential([backbone, NormSoftmaxHead(n_classes, cfg["scale"])])
    lr = cfg["base_lr"] * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["out"], exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out"], "ep{epoch:02d}.weights.h5"),
                                                         save_weights_only=True))
    hist = model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"], callbacks=callbacks,
                     verbose=1 if hvd.rank() == 0 else 0)

    # every worker embeds its slice of the test set; gather all embeddings for the retrieval metric
    sl = np.array_split(np.arange(len(yt)), hvd.size())[hvd.rank()]
    emb = np.asarray(hvd.allgather(backbone.predict(xt[sl], batch_size=256, verbose=0), name="test_emb"))
    lab = np.asarray(hvd.allgather(yt[sl], name="test_lab"))
    rec = recall_at_k(emb, lab, cfg["recall_ks"])
    if hvd.rank() == 0:
        print("final train loss %.4f | " % hist.history["loss"][-1]
              + ", ".join(f"R@{k}={v:.4f}" for k, v in rec.items()))
    return rec


if __name__ == "__main__":
    run(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})
