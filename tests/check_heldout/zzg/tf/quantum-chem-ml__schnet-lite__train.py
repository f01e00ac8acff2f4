import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
import keras

from schnet import SchNet
from schnet.data import fake_md, iterate, load_md17
from schnet.metrics import global_mae
from schnet.utils import get_logger, set_seeds


def get_args():
    p = argparse.ArgumentParser("SchNet-lite energy regression (MD17), Horovod")
    p.add_argument("--data", default=None)
    p.add_argument("--cutoff", type=float, default=5.0)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--coord-noise", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--save", default="schnet_ckpt")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    set_seeds(args.seed)
    log = get_logger()

    R, z, E = load_md17(args.data) if args.data else fake_md()
    perm = np.random.RandomState(0).permutation(len(E))
    n_val = len(E) // 10
    per_rank = (len(E) - n_val) // hvd.size()
    train_idx = perm[n_val:][hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
    val_idx = np.array_split(perm[:n_val], hvd.size())[hvd.rank()]
    e_mean, e_std = E[perm[n_val:]].mean(), E[perm[n_val:]].std()

    model = SchNet(cutoff=args.cutoff)
    steps = per_rank // args.batch_size
    lr = keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), decay_steps=args.epochs * steps)
    opt = keras.optimizers.Adam(lr)

    @tf.function(reduce_retracing=True)
    def train_step(g, y):
        with tf.GradientTape() as tape:
            pred = model(g) * e_std + e_mean
            loss = tf.reduce_mean(tf.square(pred - y))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for epoch in range(args.epochs):
        losses = [float(train_step(g, y)) for g, y in
                  iterate(R, z, E, train_idx, args.batch_size, args.cutoff, True, args.coord_noise)]
        abs_err, n = 0.0, 0
        for g, y in iterate(R, z, E, val_idx, args.batch_size, args.cutoff, False):
            pred = model(g) * e_std + e_mean
            abs_err += float(tf.reduce_sum(tf.abs(pred - y)))
            n += len(y)
        val_mae = global_mae(abs_err, n)
        if hvd.rank() == 0:
            log.info("epoch %d train mse %.5f val MAE %.5f", epoch, np.mean(losses), val_mae)
            os.makedirs(args.save, exist_ok=True)
            model.save_weights(os.path.join(args.save, f"epoch{epoch:04d}.weights.h5"))


if __name__ == "__main__":
    main()
