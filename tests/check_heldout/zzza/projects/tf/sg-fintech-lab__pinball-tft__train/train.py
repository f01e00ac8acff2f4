import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from hvdtools import setup, allreduce_sums, is_chief
from tftlite.model import TinyTFT
from tftlite.losses import pinball
from tftlite.data import build_datasets

DEFAULTS = dict(lookback=60, horizon=10, quantiles=[0.1, 0.5, 0.9], batch=64, lr=5e-4, epochs=8,
                cutoff="2019-06-01", seed=42, out="output/tft")


def get_cfg():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="json overriding DEFAULTS")
    ap.add_argument("--epochs", type=int)
    a = ap.parse_args()
    cfg = dict(DEFAULTS)
    if a.config:
        with open(a.config) as f:
            cfg.update(json.load(f))
    if a.epochs:
        cfg["epochs"] = a.epochs
    return cfg


def main():
    cfg = get_cfg()
    rank, world = setup()
    keras.utils.set_random_seed(cfg["seed"] + rank)
    train_ds, val_ds, steps = build_datasets(cfg, rank, world)

    model = TinyTFT(cfg["horizon"], len(cfg["quantiles"]))
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"] * world, clipnorm=1.0)
    model(tf.zeros((1, cfg["lookback"], 5)))
    opt.build(model.trainable_variables)
    # all workers start from rank 0's weights and (fresh) slots
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(pinball(y, model(x, training=True), cfg["quantiles"]))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg["out"], max_to_keep=3) if is_chief() else None

    for epoch in range(cfg["epochs"]):
        losses = [float(train_step(x, y)) for x, y in train_ds]
        s = np.zeros(2)
        for x, y in val_ds:
            s += [float(tf.reduce_sum(pinball(y, model(x), cfg["quantiles"]))), len(x)]
        tot = allreduce_sums(s)
        if is_chief():
            print(f"epoch {epoch} steps {steps} train {np.mean(losses):.4f} val_pinball {tot[0] / tot[1]:.4f}")
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
