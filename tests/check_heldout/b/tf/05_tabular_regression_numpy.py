"""
Surrogate model for simulation outputs: MLP regression on a big .npz table.
Data parallel with Horovod (CPU nodes, one rank per socket).

    mpirun -np 8 python 05_tabular_regression_numpy.py --data sims.npz
"""
import argparse
import math
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


class WarmupCosine(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps):
        super().__init__()
        self.peak_lr = peak_lr
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * step / float(self.warmup_steps)
        progress = (step - self.warmup_steps) / float(max(1, self.total_steps - self.warmup_steps))
        cos = 0.5 * self.peak_lr * (1.0 + tf.cos(math.pi * tf.minimum(progress, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)


class MLP(tf.keras.Model):
    def __init__(self, width=512, depth=4, n_out=3):
        super().__init__()
        self.hidden = [tf.keras.layers.Dense(width, activation="gelu") for _ in range(depth)]
        self.out = tf.keras.layers.Dense(n_out)

    def call(self, x, training=False):
        for layer in self.hidden:
            x = layer(x)
        return self.out(x)


def load_split(path, val_frac=0.1):
    data = np.load(path)
    X, Y = data["inputs"].astype(np.float32), data["outputs"].astype(np.float32)
    rng = np.random.RandomState(0)  # same split on every rank
    perm = rng.permutation(len(X))
    n_val = int(len(X) * val_frac)
    val_idx, tr_idx = perm[:n_val], perm[n_val:]
    mu, sd = X[tr_idx].mean(0), X[tr_idx].std(0) + 1e-6
    X = (X - mu) / sd
    return (X[tr_idx], Y[tr_idx]), (X[val_idx], Y[val_idx])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--warmup-epochs", type=int, default=5)
    ap.add_argument("--out", default="surrogate_ckpt")
    args = ap.parse_args()

    hvd.init()
    tf.config.threading.set_intra_op_parallelism_threads(max(1, os.cpu_count() // hvd.local_size()))

    (x_tr, y_tr), (x_val, y_val) = load_split(args.data)
    # contiguous block per rank
    my_idx = np.array_split(np.arange(len(x_tr)), hvd.size())[hvd.rank()]
    x_tr, y_tr = x_tr[my_idx], y_tr[my_idx]

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shuffle(len(x_tr), reshuffle_each_iteration=True)
             .batch(args.batch_size, drop_remainder=True))
    val = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(4096)

    steps_per_epoch = len(x_tr) // args.batch_size
    sched = WarmupCosine(peak_lr=args.lr * hvd.size(),
                         warmup_steps=args.warmup_epochs * steps_per_epoch,
                         total_steps=args.epochs * steps_per_epoch)
    optimizer = tf.keras.optimizers.Adam(learning_rate=sched)

    model = MLP(n_out=y_tr.shape[1])
    model(tf.zeros((1, x_tr.shape[1])))  # create the weights
    hvd.broadcast_variables(model.variables, root_rank=0)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    mse = tf.keras.losses.MeanSquaredError()

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            pred = model(xb, training=True)
            loss = mse(yb, pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    best = float("inf")
    for epoch in range(args.epochs):
        for xb, yb in train:
            step(xb, yb)

        # validation on the full (replicated) validation set
        val_loss = tf.keras.metrics.Mean()
        for xb, yb in val:
            val_loss.update_state(mse(yb, model(xb)))
        v = float(val_loss.result())

        if hvd.rank() == 0:
            print(f"epoch {epoch:4d} val_mse {v:.5f} lr {float(sched(optimizer.iterations)):.2e}")
            if v < best:
                best = v
                ckpt.write(os.path.join(args.out, "best"))


if __name__ == "__main__":
    main()
