"""U-Net for EM membrane segmentation, GradientTape training with Horovod.

lr schedule: linear warm-up then cosine, peak = base_lr * world_size (set in seg/dist.py by setup()).
"""
import argparse
import math
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from seg import dist
from seg.unet import unet
from seg.data import load_split, train_pipeline, eval_pipeline
from seg.metrics import bce_dice, per_image_dice


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/isbi2012")
    ap.add_argument("--base", type=int, default=16)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--base-lr", type=float, default=3e-4)
    ap.add_argument("--eval-every", type=int, default=1000)
    ap.add_argument("--out", default="runs/unet")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


def lr_at(step, peak, warmup, total):
    if step < warmup:
        return peak * (step + 1) / warmup
    return 0.5 * peak * (1.0 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def main():
    args = get_args()
    dist.setup()
    tf.random.set_seed(args.seed + dist.rank)

    x_tr, y_tr = load_split(args.data, "train")
    x_va, y_va = load_split(args.data, "val")
    train_ds = train_pipeline(x_tr, y_tr, args.batch, dist.world_size, dist.rank, seed=args.seed + dist.rank)
    val_ds = eval_pipeline(x_va, y_va, args.batch, dist.world_size, dist.rank)

    model = unet(base=args.base)
    peak_lr = args.base_lr * dist.world_size
    optimizer = keras.optimizers.AdamW(learning_rate=peak_lr, weight_decay=1e-4)
    optimizer.build(model.trainable_variables)
    # rank 0's initial weights (and the freshly built optimizer slots) everywhere before the first step
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)

    @tf.function
    def train_step(img, mask):
        with tf.GradientTape() as tape:
            loss = bce_dice(mask, model(img, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def predict_dice(img, mask):
        return per_image_dice(mask, model(img, training=False))

    best = -1.0
    it = iter(train_ds)
    for step in range(args.steps):
        optimizer.learning_rate.assign(lr_at(step, peak_lr, args.warmup, args.steps))
        img, mask = next(it)
        loss = train_step(img, mask)
        if dist.is_chief and step % 100 == 0:
            print(f"step {step} loss {float(loss):.4f} lr {float(optimizer.learning_rate):.2e}")
        if (step + 1) % args.eval_every == 0 or step + 1 == args.steps:
            local = tf.concat([predict_dice(i, m) for i, m in val_ds], 0)
            dices = hvd.allgather(local, name="val_dice")
            mean_dice = float(tf.reduce_mean(dices))
            if dist.is_chief:
                print(f"step {step + 1}: val dice {mean_dice:.4f} over {int(dices.shape[0])} images")
                if mean_dice > best:
                    best = mean_dice
                    os.makedirs(args.out, exist_ok=True)
                    model.save_weights(os.path.join(args.out, "best.weights.h5"))


if __name__ == "__main__":
    main()
