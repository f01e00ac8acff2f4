# ECG arrhythmia classifier (MIT-BIH beats, 5 classes) -- distributed version
# of my single-GPU notebook. Trainer class so the sweep script can reuse it.
import os
import json
import time
import argparse

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

CFG = {
    "data": "/project/ecg/mitbih_beats.npz",
    "epochs": 40,
    "batch_size": 64,
    "lr": 1e-3,
    "dropout": 0.2,
    "save_dir": "checkpoints/ecg",
}


class ECGNet(tf.keras.Model):
    def __init__(self, n_classes=5, dropout=0.2):
        super().__init__()
        self.blocks = []
        for f in (32, 64, 128, 128):
            self.blocks.append([
                tf.keras.layers.Conv1D(f, 7, padding="same"),
                tf.keras.layers.BatchNormalization(),
                tf.keras.layers.ReLU(),
                tf.keras.layers.MaxPool1D(2),
            ])
        self.gap = tf.keras.layers.GlobalAveragePooling1D()
        self.drop = tf.keras.layers.Dropout(dropout)
        self.head = tf.keras.layers.Dense(n_classes)

    def call(self, x, training=False):
        for conv, bn, act, pool in self.blocks:
            x = pool(act(bn(conv(x), training=training)))
        return self.head(self.drop(self.gap(x), training=training))


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.opt = tf.keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size())
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.train_loss = tf.keras.metrics.Mean(name="train_loss")
        self.train_acc = tf.keras.metrics.SparseCategoricalAccuracy(name="train_acc")
        self.val_loss = tf.keras.metrics.Mean(name="val_loss")
        self.val_acc = tf.keras.metrics.SparseCategoricalAccuracy(name="val_acc")
        # make sure all workers start from the same weights
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        self.history = []

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        self.train_loss.update_state(loss)
        self.train_acc.update_state(y, logits)

    @tf.function
    def val_step(self, x, y):
        logits = self.model(x, training=False)
        self.val_loss.update_state(self.loss_fn(y, logits))
        self.val_acc.update_state(y, logits)

    def reset(self):
        for m in (self.train_loss, self.train_acc, self.val_loss, self.val_acc):
            m.reset_state()

    def fit(self, train_ds, val_ds, epochs):
        best = np.inf
        for epoch in range(epochs):
            self.reset()
            t0 = time.time()
            for x, y in train_ds:
                self.train_step(x, y)
            for x, y in val_ds:
                self.val_step(x, y)
            rec = {
                "epoch": epoch,
                "loss": float(self.train_loss.result()),
                "acc": float(self.train_acc.result()),
                "val_loss": float(self.val_loss.result()),
                "val_acc": float(self.val_acc.result()),
                "time": time.time() - t0,
            }
            if hvd.rank() == 0:
                self.history.append(rec)
                print(json.dumps(rec), flush=True)
                if rec["val_loss"] < best:
                    best = rec["val_loss"]
                    self.save("best")
        if hvd.rank() == 0:
            self.save("last")
        return self.history

    def save(self, tag):
        os.makedirs(self.cfg["save_dir"], exist_ok=True)
        self.model.save_weights(os.path.join(self.cfg["save_dir"], f"ecg_{tag}.weights.h5"))


def load_data(cfg):
    d = np.load(cfg["data"])
    x_tr, y_tr = d["x_train"][..., None].astype("float32"), d["y_train"].astype("int32")
    x_va, y_va = d["x_val"][..., None].astype("float32"), d["y_val"].astype("int32")
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(20000)
             .batch(cfg["batch_size"], drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
           .shard(hvd.size(), hvd.rank())
           .batch(256))
    return train, val


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    args = ap.parse_args()
    cfg = dict(CFG)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, val_ds = load_data(cfg)
    model = ECGNet(dropout=cfg["dropout"])
    trainer = Trainer(model, cfg)
    trainer.fit(train_ds, val_ds, cfg["epochs"])


if __name__ == "__main__":
    main()
