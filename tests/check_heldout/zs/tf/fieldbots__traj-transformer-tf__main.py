import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from tt.data import synthetic_trajectories, to_dataset, windows
from tt.gpu import pin_gpu
from tt.metrics import Mean
from tt.model import TrajectoryTransformer
from tt.optim import make_optimizer


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="synthetic", help="'synthetic' or a .npz with states/actions")
    ap.add_argument("--context", type=int, default=20)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--warmup", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--steps-per-epoch", type=int, default=1000)
    ap.add_argument("--save-dir", default="checkpoints/tt")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    dev = pin_gpu(hvd.rank())
    print(f"[worker {hvd.rank()}] device={dev}")

    if args.dataset == "synthetic":
        states, actions = synthetic_trajectories()
    else:
        z = np.load(args.dataset)
        states, actions = z["states"].astype("float32"), z["actions"].astype("float32")
    n_val = len(states) // 10
    tr = windows(states[n_val:], actions[n_val:], args.context)
    va = windows(states[:n_val], actions[:n_val], args.context)
    train_ds = to_dataset(*tr, args.batch, hvd.rank(), hvd.size())
    val_ds = to_dataset(*va, args.batch, hvd.rank(), hvd.size(), train=False)
    val_batches = len(va[0]) // (args.batch * hvd.size())

    model = TrajectoryTransformer(actions.shape[-1], args.context)
    total = args.epochs * args.steps_per_epoch
    opt = make_optimizer(args.lr * hvd.size(), args.warmup, total)

    @tf.function
    def train_step(batch, first):
        (s, prev), a = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model((s, prev), training=True) - a))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(batch):
        (s, prev), a = batch
        return tf.reduce_mean(tf.square(model((s, prev)) - a))

    it = iter(train_ds)
    for epoch in range(args.epochs):
        train_loss, val_loss = Mean("train_loss"), Mean("val_loss")
        for step in range(args.steps_per_epoch):
            train_loss.update(train_step(next(it), epoch == 0 and step == 0))
        for batch in val_ds.take(val_batches):
            val_loss.update(eval_step(batch))
        tl, vl = train_loss.result(), val_loss.result()
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}: train {tl:.5f} val {vl:.5f}", flush=True)
            os.makedirs(args.save_dir, exist_ok=True)
            model.save_weights(os.path.join(args.save_dir, "tt.weights.h5"))


if __name__ == "__main__":
    main()
