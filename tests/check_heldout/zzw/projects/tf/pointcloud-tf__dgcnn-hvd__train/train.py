"""DGCNN classification on ModelNet40, TF2 custom loop + Horovod.

  horovodrun -np 4 python train.py --data data/modelnet40_ply_hdf5_2048 --epochs 250
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from dgcnn.data import load_modelnet, test_pipeline, train_pipeline
from dgcnn.logger import log
from dgcnn.metrics import global_accuracy, mean_class_accuracy
from dgcnn.model import DGCNN


def get_parser():
    p = argparse.ArgumentParser("DGCNN")
    p.add_argument("--data", default="data/modelnet40_ply_hdf5_2048")
    p.add_argument("--num_points", type=int, default=1024)
    p.add_argument("--batch_size", type=int, default=16, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="reference lr for one worker")
    p.add_argument("--epochs", type=int, default=250)
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--exp", default="checkpoints/dgcnn_cls")
    return p


def smooth_ce(labels, logits, eps=0.2):
    n = tf.shape(logits)[-1]
    one_hot = tf.one_hot(labels, n)
    one_hot = one_hot * (1 - eps) + eps / tf.cast(n, tf.float32)
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(one_hot, logits))


def main(args):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    tr_pts, tr_lbl = load_modelnet(args.data, "train")
    te_pts, te_lbl = load_modelnet(args.data, "test")
    train_ds = train_pipeline(tr_pts, tr_lbl, args.batch_size, args.num_points, hvd.rank(), hvd.size())
    test_ds = test_pipeline(te_pts, te_lbl, args.batch_size, args.num_points, hvd.rank(), hvd.size())

    model = DGCNN(40, k=args.k)
    steps = len(tr_lbl) // (args.batch_size * hvd.size())
    schedule = tf.keras.optimizers.schedules.CosineDecay(args.lr * hvd.size(), decay_steps=args.epochs * steps,
                                                         alpha=1e-3)
    opt = tf.keras.optimizers.Adam(schedule)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)

    @tf.function
    def train_step(x, y, first):
        with tf.GradientTape() as tape:
            loss = smooth_ce(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    first = True
    for epoch in range(args.epochs):
        for x, y in train_ds.take(steps):
            loss = train_step(x, y, first)
            first = False

        correct, total = 0.0, 0.0
        cls_c, cls_n = np.zeros(40), np.zeros(40)
        for x, y in test_ds:
            pred = tf.argmax(model(x, training=False), -1, output_type=tf.int32).numpy()
            y = y.numpy()
            correct += float((pred == y).sum())
            total += float(len(y))
            np.add.at(cls_n, y, 1)
            np.add.at(cls_c, y[pred == y], 1)
        oa = global_accuracy(correct, total)
        macc = mean_class_accuracy(cls_c, cls_n)
        log.info("epoch %d loss %.4f test OA %.4f mAcc %.4f", epoch, float(loss), oa, macc)
        if hvd.rank() == 0 and (epoch + 1) % 10 == 0:
            ckpt.save(os.path.join(args.exp, "ckpt"))


if __name__ == "__main__":
    main(get_parser().parse_args())
