"""Keyword-spotting (35 words) trainer: custom GradientTape loop on Horovod.

Other entry points sharing common/: export_tflite.py, eval_stream.py, calibrate.py.
    mpirun -np 4 python train.py --data /data/speech_commands_v2_npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from common import hvd_tf
from common.features import log_mel
from common.logging_utils import log
from kws_model import ds_cnn


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/speech_commands_v2_npz")
    p.add_argument("--batch-size", type=int, default=100)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--ckpt-dir", default="ckpt/ds_cnn")
    return p.parse_args()


def make_ds(x, y, batch, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    if training:
        # same number of steps on every worker, or the last allreduce of an epoch hangs
        ds = ds.shuffle(4096, reshuffle_each_iteration=True)
        ds = ds.batch(batch, drop_remainder=True).take(len(x) // (batch * hvd.size()))
    else:
        ds = ds.batch(batch)
    return ds.map(lambda a, b: (log_mel(a), b)).prefetch(2)


def main():
    args = get_args()
    hvd.init()
    hvd_tf.pin_gpu()

    z = np.load(os.path.join(args.data, "train.npz"))
    v = np.load(os.path.join(args.data, "val.npz"))
    train_ds = make_ds(z["audio"], z["label"], args.batch_size, True)
    val_ds = make_ds(v["audio"], v["label"], args.batch_size, False)

    model = ds_cnn(n_classes=35)
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    val_acc = tf.keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
    first = True
    for epoch in range(args.epochs):
        for x, y in train_ds:
            loss = step(x, y)
            if first:
                hvd_tf.broadcast_model_and_optimizer(model, opt)
                first = False
        val_acc.reset_state()
        for x, y in val_ds:
            val_acc.update_state(y, model(x, training=False))
        if hvd.rank() == 0:
            log(f"epoch {epoch} loss {float(loss):.4f} val_acc {float(val_acc.result()):.4f}")
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
