"""Pedestrian trajectory forecasting (8 observed -> 12 future steps), TF2 custom loop.

Gradient accumulation (config `accum_steps`), EMA of the weights for evaluation, Horovod for
multi-GPU:  horovodrun -np 4 python train_tf.py --cfg configs/eth_ucy.yaml
"""
import argparse
import os
import time
from types import SimpleNamespace

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf
import yaml

DEFAULTS = dict(data="data/eth_ucy.npz", obs_len=8, pred_len=12, hidden=128, batch_size=64,
                lr=1e-3, accum_steps=4, epochs=150, ema_decay=0.999, ckpt_dir="ckpts/traj",
                val_every=5)


def get_cfg():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=None)
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VAL")
    a = ap.parse_args()
    cfg = dict(DEFAULTS)
    if a.cfg:
        with open(a.cfg) as f:
            cfg.update(yaml.safe_load(f) or {})
    for kv in a.set:
        k, v = kv.split("=", 1)
        cfg[k] = type(DEFAULTS[k])(v)
    return SimpleNamespace(**cfg)


class Forecaster(keras.Model):
    def __init__(self, hidden, pred_len):
        super().__init__()
        self.embed = keras.layers.Dense(hidden // 2, activation="relu")
        self.encoder = keras.layers.LSTM(hidden, return_state=True)
        self.head = keras.layers.Dense(pred_len * 2)
        self.pred_len = pred_len

    def call(self, obs, training=False):
        vel = obs[:, 1:] - obs[:, :-1]
        _, h, _ = self.encoder(self.embed(vel), training=training)
        disp = tf.reshape(self.head(h), (-1, self.pred_len, 2))
        return obs[:, -1:, :] + tf.cumsum(disp, axis=1)


def ade_fde(pred, fut):
    d = tf.norm(pred - fut, axis=-1)
    return tf.reduce_mean(d, axis=1), d[:, -1]


class AccumTrainer:
    """Accumulates gradients over `accum_steps` micro-batches, then one allreduce + apply."""

    def __init__(self, model, optimizer, cfg, callbacks=()):
        self.model, self.optimizer, self.cfg = model, optimizer, cfg
        self.callbacks = list(callbacks)
        self.accum, self.shadow = None, None
        self.updates = 0

    def _init_accum(self):
        tvars = self.model.trainable_variables
        self.accum = [tf.Variable(tf.zeros_like(v), trainable=False) for v in tvars]
        self.shadow = [tf.Variable(v, trainable=False) for v in tvars]     # EMA weights

    @tf.function
    def micro_step(self, obs, fut):
        with tf.GradientTape() as tape:
            pred = self.model(obs, training=True)
            loss = tf.reduce_mean(ade_fde(pred, fut)[0])
        grads = tape.gradient(loss, self.model.trainable_variables)
        for a, g in zip(self.accum, grads):
            a.assign_add(g / self.cfg.accum_steps)
        return loss

    @tf.function
    def apply_step(self):
        reduced = [hvd.allreduce(a, op=hvd.Average) for a in self.accum]
        self.optimizer.apply_gradients(zip(self.accum, self.model.trainable_variables))
        d = self.cfg.ema_decay
        for s, v in zip(self.shadow, self.model.trainable_variables):
            s.assign(d * s + (1.0 - d) * v)
        for a in self.accum:
            a.assign(tf.zeros_like(a))
        return tf.add_n([tf.reduce_sum(tf.square(r)) for r in reduced])

    def train_epoch(self, ds, epoch):
        losses = []
        for i, (obs, fut) in enumerate(ds):
            if self.accum is None:
                self.model(obs)
                self._init_accum()
            losses.append(float(self.micro_step(obs, fut)))
            if (i + 1) % self.cfg.accum_steps == 0:
                gsq = self.apply_step()
                self.updates += 1
                for cb in self.callbacks:
                    cb(self, epoch, self.updates, float(gsq))
        return float(np.mean(losses))


def broadcast_after_first_update(trainer, epoch, update, gsq):
    if update == 1:
        # optimizer slots exist only now; sync everything from rank 0
        hvd.broadcast_global_variables(0)


def log_progress(trainer, epoch, update, gsq):
    if hvd.rank() == 0 and update % 100 == 0:
        print(f"epoch {epoch} update {update} |g|^2 {gsq:.3e}", flush=True)


def evaluate(model, shadow, ds):
    backup = [tf.identity(v) for v in model.trainable_variables]
    for v, s in zip(model.trainable_variables, shadow):
        v.assign(s)
    ade_sum, fde_sum, n = 0.0, 0.0, 0
    for obs, fut in ds:
        ade, fde = ade_fde(model(obs), fut)
        ade_sum += float(tf.reduce_sum(ade))
        fde_sum += float(tf.reduce_sum(fde))
        n += int(obs.shape[0])
    for v, b in zip(model.trainable_variables, backup):
        v.assign(b)
    tot = hvd.allreduce(tf.constant([ade_sum, fde_sum, float(n)], tf.float64), op=hvd.Sum)
    return float(tot[0] / tot[2]), float(tot[1] / tot[2])


def main():
    cfg = get_cfg()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    blob = np.load(cfg.data)
    tr = blob["train"].astype("float32")            # (N, obs_len + pred_len, 2)
    va = blob["val"].astype("float32")
    split = lambda a: (a[:, :cfg.obs_len], a[:, cfg.obs_len:])
    train_ds = (tf.data.Dataset.from_tensor_slices(split(tr)).shard(hvd.size(), hvd.rank())
                .shuffle(4096).batch(cfg.batch_size, drop_remainder=True))
    n_micro = (len(tr) // hvd.size()) // cfg.batch_size // cfg.accum_steps * cfg.accum_steps
    train_ds = train_ds.take(n_micro)
    val_ds = tf.data.Dataset.from_tensor_slices(split(va)).shard(hvd.size(), hvd.rank()).batch(256)

    model = Forecaster(cfg.hidden, cfg.pred_len)
    optimizer = keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    trainer = AccumTrainer(model, optimizer, cfg, callbacks=[broadcast_after_first_update, log_progress])

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=5) if hvd.rank() == 0 else None
    best = float("inf")
    for epoch in range(cfg.epochs):
        t0 = time.time()
        loss = trainer.train_epoch(train_ds, epoch)
        if (epoch + 1) % cfg.val_every == 0:
            ade, fde = evaluate(model, trainer.shadow, val_ds)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: train {loss:.3f}  val ADE {ade:.3f} FDE {fde:.3f}  "
                      f"({time.time() - t0:.0f}s)", flush=True)
                if ade < best:
                    best = ade
                    manager.save()
    if hvd.rank() == 0:
        model.save_weights(os.path.join(cfg.ckpt_dir, "final.weights.h5"))


if __name__ == "__main__":
    main()
