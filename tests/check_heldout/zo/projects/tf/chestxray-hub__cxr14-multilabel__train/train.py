"""ChestX-ray14: 14-label classifier trained with a GradientTape loop on Horovod.

    horovodrun -np 8 python train.py --data /datasets/cxr14 --epochs 12
"""
import argparse
import logging
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from cxr import PATHOLOGIES
from cxr.data import pipeline, read_split
from cxr.gpu import setup_gpus
from cxr.metrics import per_label_auroc
from cxr.model import build_densenet_lite
from cxr.optim import make_optimizer

log = logging.getLogger("cxr14")


def weighted_bce(pos_weight):
    def loss_fn(labels, logits):
        per = tf.nn.weighted_cross_entropy_with_logits(labels, logits, pos_weight)
        return tf.reduce_mean(per)
    return loss_fn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/datasets/cxr14")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--ckpt-dir", default="ckpt/cxr14")
    args = ap.parse_args()

    # must run before TensorFlow initialises the GPUs
    setup_gpus()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(message)s")

    csv_path = os.path.join(args.data, "Data_Entry_2017.csv")
    img_dir = os.path.join(args.data, "images")
    tr_paths, tr_y = read_split(csv_path, os.path.join(args.data, "train_val_list.txt"), img_dir)
    te_paths, te_y = read_split(csv_path, os.path.join(args.data, "test_list.txt"), img_dir)
    pos = tr_y.mean(0)
    loss_fn = weighted_bce(tf.constant((1 - pos) / np.maximum(pos, 1e-4), tf.float32))

    train_ds = pipeline(tr_paths, tr_y, args.batch_size, args.size, hvd.rank(), hvd.size(), True)
    test_ds = pipeline(te_paths, te_y, args.batch_size, args.size, hvd.rank(), hvd.size(), False)
    steps = len(tr_paths) // (args.batch_size * hvd.size())

    model = build_densenet_lite(args.size, len(PATHOLOGIES))
    opt = make_optimizer(args.lr, steps, args.epochs, world_size=hvd.size())
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    @tf.function
    def step_fn(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    batches = iter(train_ds)
    for epoch in range(args.epochs):
        for i in range(steps):
            x, y = next(batches)
            loss = step_fn(x, y, epoch == 0 and i == 0)
            if i % 200 == 0:
                log.info("epoch %d step %d/%d loss %.4f", epoch, i, steps, float(loss))

        scores, labels = [], []
        for x, y in test_ds:
            scores.append(tf.sigmoid(model(x, training=False)))
            labels.append(y)
        scores = hvd.allgather(tf.concat(scores, 0), name="scores").numpy()
        labels = hvd.allgather(tf.concat(labels, 0), name="labels").numpy()
        aucs = per_label_auroc(labels, scores, PATHOLOGIES)
        log.info("epoch %d mean AUROC %.4f | %s", epoch, np.nanmean(list(aucs.values())),
                 " ".join(f"{k[:5]}={v:.3f}" for k, v in aucs.items()))
        if hvd.rank() == 0:
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
