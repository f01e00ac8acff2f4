"""U-Net segmentation of cell tiles with a custom Horovod training loop (TF2 / Keras 3).

Grown from the JUWELS "distributed TensorFlow" course exercise. Global batch is fixed in the
config below and split over the ranks, the learning rate is tuned for that global batch.
"""
import argparse
import json
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from common.hvd_utils import init_and_pin, is_chief, allreduce_mean
from common.data import load_split, make_dataset
from common.unet import build_unet
from common.ckpt import ChiefCheckpoint

DEFAULTS = {"global_batch": 64, "lr": 3e-4, "epochs": 30, "data": "./tiles", "ckpt": "./ckpt_unet"}


def dice(logits, mask, eps=1.0):
    p = tf.sigmoid(logits)
    inter = tf.reduce_sum(p * mask, axis=[1, 2, 3])
    return tf.reduce_mean((2 * inter + eps) / (tf.reduce_sum(p + mask, axis=[1, 2, 3]) + eps))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="json file overriding DEFAULTS")
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args()
    cfg = dict(DEFAULTS)
    if a.config:
        with open(a.config) as f:
            cfg.update(json.load(f))

    init_and_pin()
    local_batch = cfg["global_batch"] // hvd.size()

    x_tr, y_tr = load_split(cfg["data"], "train")
    x_va, y_va = load_split(cfg["data"], "val")
    train_ds, steps = make_dataset(x_tr, y_tr, local_batch, training=True)
    val_ds, _ = make_dataset(x_va, y_va, local_batch, training=False)

    model = build_unet(input_shape=x_tr.shape[1:])
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"])
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    ckpt = ChiefCheckpoint(cfg["ckpt"], model=model, optimizer=opt)
    if a.resume:
        restored = ckpt.restore_latest()
        if restored:
            print("rank 0 restored", restored, flush=True)

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = bce(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            # after the first apply the optimizer slots exist, so both can be broadcast
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(x, y):
        logits = model(x, training=False)
        return bce(y, logits), dice(logits, y)

    first = True
    for epoch in range(cfg["epochs"]):
        t0, tr_loss = time.time(), 0.0
        for x, y in train_ds:
            tr_loss += float(train_step(x, y, first))
            first = False
        n_val, v_loss, v_dice = 0, 0.0, 0.0
        for x, y in val_ds:
            l, d = eval_step(x, y)
            v_loss, v_dice, n_val = v_loss + float(l), v_dice + float(d), n_val + 1
        tr_loss = allreduce_mean(tr_loss / max(steps, 1), "train_loss")
        v_loss = allreduce_mean(v_loss / max(n_val, 1), "val_loss")
        v_dice = allreduce_mean(v_dice / max(n_val, 1), "val_dice")
        if is_chief():
            print(f"epoch {epoch}: loss {tr_loss:.4f} val_loss {v_loss:.4f} dice {v_dice:.4f} "
                  f"({steps * local_batch / (time.time() - t0):.1f} tiles/s on rank 0)", flush=True)
        ckpt.save(epoch)


if __name__ == "__main__":
    main()
