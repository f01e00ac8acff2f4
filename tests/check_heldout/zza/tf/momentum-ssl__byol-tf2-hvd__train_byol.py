"""BYOL on Tiny-ImageNet style folders, TensorFlow 2 + Horovod.

    horovodrun -np 8 python train_byol.py --data /data/tiny-imagenet/train --epochs 300
"""
import argparse
import logging
import math
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from byol_tf.aug import make_pair
from byol_tf.nets import build_byol
from utils.ckpt import CheckpointSaver
from utils.hw import setup_gpus

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("byol")


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--img-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--wd", type=float, default=1e-5)
    p.add_argument("--tau", type=float, default=0.99)
    p.add_argument("--out", default="runs/byol_tf")
    return p.parse_args()


def regression(p, z):
    p = tf.math.l2_normalize(p, axis=-1)
    z = tf.math.l2_normalize(tf.stop_gradient(z), axis=-1)
    return 2.0 - 2.0 * tf.reduce_sum(p * z, axis=-1)


def main():
    args = parse()
    hvd.init()

    enc, proj, pred, t_enc, t_proj = build_byol((args.img_size, args.img_size, 3))
    n_gpus = setup_gpus()
    if hvd.rank() == 0:
        log.info("workers=%d gpus/node=%d params=%d", hvd.size(), n_gpus, enc.count_params())

    files = tf.data.Dataset.list_files(f"{args.data}/*/images/*.JPEG", shuffle=False)
    n_files = int(files.cardinality())
    steps = n_files // hvd.size() // args.batch
    ds = (files.shard(hvd.size(), hvd.rank())
          .shuffle(20_000)
          .map(lambda f: tf.io.decode_jpeg(tf.io.read_file(f), channels=3), num_parallel_calls=tf.data.AUTOTUNE)
          .map(make_pair(args.img_size), num_parallel_calls=tf.data.AUTOTUNE)
          .batch(args.batch, drop_remainder=True)
          .take(steps)
          .prefetch(tf.data.AUTOTUNE))

    lr = keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), decay_steps=args.epochs * steps)
    opt = keras.optimizers.SGD(learning_rate=lr, momentum=0.9, weight_decay=args.wd)
    online_vars = enc.trainable_variables + proj.trainable_variables + pred.trainable_variables
    online_models, target_models = (enc, proj), (t_enc, t_proj)

    saver = CheckpointSaver(args.out, enc, projector=proj, predictor=pred, target_encoder=t_enc,
                            target_projector=t_proj, optimizer=opt)
    saver.restore_latest()

    @tf.function
    def step(v1, v2, tau, first):
        with tf.GradientTape() as tape:
            p1 = pred(proj(enc(v1, training=True), training=True), training=True)
            p2 = pred(proj(enc(v2, training=True), training=True), training=True)
            z1 = t_proj(t_enc(v1, training=True), training=True)
            z2 = t_proj(t_enc(v2, training=True), training=True)
            loss = tf.reduce_mean(regression(p1, z2) + regression(p2, z1))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, online_vars)
        opt.apply_gradients(zip(grads, online_vars))
        if first:
            hvd.broadcast_variables([v for m in online_models + target_models for v in m.variables] + [
                v for v in pred.variables], root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        # EMA update of the target network
        for om, tm in zip(online_models, target_models):
            for w_o, w_t in zip(om.variables, tm.variables):
                w_t.assign(tau * w_t + (1.0 - tau) * w_o)
        return loss

    first = True
    total_steps = args.epochs * steps
    for epoch in range(args.epochs):
        t0, losses = time.time(), []
        for i, (v1, v2) in enumerate(ds):
            k = epoch * steps + i
            tau = 1 - (1 - args.tau) * (math.cos(math.pi * k / total_steps) + 1) / 2
            losses.append(step(v1, v2, tf.constant(tau, tf.float32), tf.constant(first)))
            first = False
        avg = hvd.allreduce(tf.reduce_mean(tf.stack(losses)), op=hvd.Average)
        if hvd.rank() == 0:
            log.info("epoch %d loss %.4f (%.0fs)", epoch + 1, float(avg), time.time() - t0)
        saver.save(epoch + 1)


if __name__ == "__main__":
    main()
