"""BYOL self-supervised pretraining of a tabular encoder (TF2, Horovod GradientTape loop).

Usage:
    horovodrun -np 8 python pretrain.py --data data/higgs_features.npy --steps-per-epoch 500
"""
import argparse
import logging
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from byol import hvd_utils
from byol.augment import two_views
from byol.networks import make_mlp
from byol.optim import build_optimizer

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("byol")


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/higgs_features.npy")
    ap.add_argument("--batch-size", type=int, default=512, help="per worker")
    ap.add_argument("--base-lr", type=float, default=0.2)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--steps-per-epoch", type=int, default=500)
    ap.add_argument("--tau", type=float, default=0.99)
    ap.add_argument("--workdir", default="byol_run")
    return ap.parse_args()


def byol_loss(p, z):
    p = tf.math.l2_normalize(p, axis=-1)
    z = tf.math.l2_normalize(tf.stop_gradient(z), axis=-1)
    return 2.0 - 2.0 * tf.reduce_sum(p * z, axis=-1)


def main():
    args = get_args()
    hvd_utils.init_horovod()

    x = np.load(args.data).astype("float32")
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    ds = (tf.data.Dataset.from_tensor_slices(x)
          .shard(hvd.size(), hvd.rank())
          .shuffle(50_000, seed=hvd.rank())
          .repeat()
          .batch(args.batch_size, drop_remainder=True)
          .map(two_views, num_parallel_calls=tf.data.AUTOTUNE)
          .prefetch(2))

    dim = x.shape[1]
    online = make_mlp(dim, [512, 512, 256], name="online")
    projector = make_mlp(256, [512, 128], name="projector")
    predictor = make_mlp(128, [512, 128], name="predictor")
    target = make_mlp(dim, [512, 512, 256], name="target")
    target_proj = make_mlp(256, [512, 128], name="target_proj")
    target.set_weights(online.get_weights())
    target_proj.set_weights(projector.get_weights())

    optimizer = build_optimizer(args.base_lr, args.batch_size, args.epochs * args.steps_per_epoch)
    trainable = online.trainable_variables + projector.trainable_variables + predictor.trainable_variables

    @tf.function
    def train_step(v1, v2):
        with tf.GradientTape() as tape:
            p1 = predictor(projector(online(v1, training=True), training=True), training=True)
            p2 = predictor(projector(online(v2, training=True), training=True), training=True)
            z1 = target_proj(target(v1))
            z2 = target_proj(target(v2))
            loss = tf.reduce_mean(byol_loss(p1, z2) + byol_loss(p2, z1))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, trainable)
        optimizer.apply_gradients(zip(grads, trainable))
        for t, o in zip(target.variables + target_proj.variables, online.variables + projector.variables):
            t.assign(args.tau * t + (1.0 - args.tau) * o)
        return loss

    ckpt = tf.train.Checkpoint(online=online, projector=projector, predictor=predictor,
                               target=target, target_proj=target_proj, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(args.workdir, "ckpt"), max_to_keep=2)

    it = iter(ds)
    for epoch in range(args.epochs):
        losses = []
        for step in range(args.steps_per_epoch):
            v1, v2 = next(it)
            losses.append(train_step(v1, v2))
            if epoch == 0 and step == 0:
                hvd_utils.sync_variables([online, projector, predictor, target, target_proj], optimizer)
        epoch_loss = hvd_utils.allreduce_mean(tf.reduce_mean(losses))
        if hvd.rank() == 0:
            log.info("epoch %d byol_loss %.4f lr %.5f", epoch, epoch_loss,
                     float(optimizer.learning_rate))
            manager.save()


if __name__ == "__main__":
    main()
