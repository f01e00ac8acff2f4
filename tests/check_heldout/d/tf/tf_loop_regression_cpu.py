"""
Surrogate model for a climate-sim parameter sweep: MLP regression on CPU nodes.
Launched with: srun -n 32 python tf_loop_regression_cpu.py --data sweep.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="sweep.npz")
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--bs", type=int, default=512)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--out", default="surrogate_ckpt")
    return ap.parse_args()


def make_model(n_in, n_out):
    return tf.keras.Sequential([
        tf.keras.layers.Dense(256, activation="gelu", input_shape=(n_in,)),
        tf.keras.layers.Dense(256, activation="gelu"),
        tf.keras.layers.Dense(128, activation="gelu"),
        tf.keras.layers.Dense(n_out),
    ])


def avg(value, name):
    return float(hvd.allreduce(tf.constant(value, dtype=tf.float64), name=name))


def main():
    args = parse()
    # CPU-only partition: hide any GPU and give each rank a fixed thread budget
    tf.config.set_visible_devices([], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    hvd.init()

    d = np.load(args.data)
    X, Y = d["params"].astype(np.float32), d["outputs"].astype(np.float32)
    rng = np.random.default_rng(0)          # same permutation on all ranks
    order = rng.permutation(len(X))
    n_val = len(X) // 10
    val, tr = order[:n_val], order[n_val:]
    x_mean, x_std = X[tr].mean(0), X[tr].std(0) + 1e-8
    X = (X - x_mean) / x_std

    mine = tr[hvd.rank()::hvd.size()]
    x_tr, y_tr = X[mine], Y[mine]
    x_va, y_va = X[val], Y[val]

    train = tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shuffle(len(x_tr)).batch(args.bs)

    model = make_model(X.shape[1], Y.shape[1])
    sched = tf.keras.optimizers.schedules.ExponentialDecay(args.lr * hvd.size(), decay_steps=1000, decay_rate=0.9)
    opt = tf.keras.optimizers.Adam(learning_rate=sched)
    mse = tf.keras.losses.MeanSquaredError()

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = mse(yb, model(xb, training=True))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.none)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    best = np.inf
    for epoch in range(args.epochs):
        tot, nb = 0.0, 0
        for b, (xb, yb) in enumerate(train):
            loss = step(xb, yb)
            if epoch == 0 and b == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables(), root_rank=0)
            tot += float(loss)
            nb += 1
        train_mse = avg(tot / nb, "train_mse")
        val_mse = float(mse(y_va, model(x_va, training=False)))  # identical on every rank
        if hvd.rank() == 0:
            print(f"{epoch:4d} train {train_mse:.5f} val {val_mse:.5f}", flush=True)
            if val_mse < best:
                best = val_mse
                ckpt.write(os.path.join(args.out, "best"))


if __name__ == "__main__":
    main()
