"""Train the nowcasting U-Net on radar sequences with Horovod (custom loop).

    srun -N 2 --ntasks-per-node=4 python train.py --data /lustre/radar/seq12
"""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from nowcast.hvd_utils import pin_local_gpu, sum_over_workers, sync_initial_state
from nowcast.losses import contingency, weighted_mae
from nowcast.model import build_unet3d
from nowcast.pipeline import build_dataset

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="/lustre/radar/seq12")
ap.add_argument("--batch-size", type=int, default=16, help="sequences per GPU")
ap.add_argument("--lr", type=float, default=3e-4)
ap.add_argument("--epochs", type=int, default=25)
ap.add_argument("--ckpt", default="checkpoints/nowcast")
ap.add_argument("--log-every", type=int, default=200)


def main():
    args = ap.parse_args()
    hvd.init()
    n_gpus = pin_local_gpu()

    train_ds = build_dataset(args.data, "train", args.batch_size, training=True)
    val_ds = build_dataset(args.data, "val", 4, training=False)

    model = build_unet3d()
    optimizer = keras.optimizers.Adam(learning_rate=args.lr)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=5)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = weighted_mae(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 1.0)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        return contingency(y, model(x, training=False))

    first = True
    for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
        t0 = time.time()
        for i, (x, y) in enumerate(train_ds):
            loss = train_step(x, y)
            if first:
                sync_initial_state(model, optimizer)
                first = False
            if i % args.log_every == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {i} loss {float(loss):.5f}", flush=True)

        counts = tf.zeros(3)
        for x, y in val_ds:
            counts += eval_step(x, y)
        hits, misses, fa = sum_over_workers(counts, "val_counts").numpy()
        csi = hits / max(hits + misses + fa, 1.0)
        ckpt.epoch.assign(epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val CSI@1mm {csi:.4f} ({time.time() - t0:.0f}s, {n_gpus} local GPUs)")
            manager.save()


if __name__ == "__main__":
    main()
