"""Pfam family classification with a dilated ResNet (ProtCNN-style).

    horovodrun -np 16 python train.py --train 'gs-mirror/pfam/train-*.tfrecord'
"""
import argparse
import os
import time

import horovod.tensorflow as hvd
import tensorflow as tf

from protein.model import protcnn
from protein.optim import make_optimizer
from protein.pipeline import build_eval_dataset, build_train_dataset


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/pfam/train-*.tfrecord")
    ap.add_argument("--dev", default="data/pfam/dev-*.tfrecord")
    ap.add_argument("--num-families", type=int, default=17929)
    ap.add_argument("--max-len", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--total-steps", type=int, default=200000)
    ap.add_argument("--eval-every", type=int, default=5000)
    ap.add_argument("--out", default="checkpoints/protcnn")
    return ap.parse_args()


def main():
    cfg = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    # Horovod: scale the learning rate by the number of workers
    cfg.lr = cfg.lr * hvd.size()
    cfg.total_steps = cfg.total_steps // hvd.size()

    train_ds = build_train_dataset(cfg.train, cfg.batch_size, cfg.max_len, hvd.size(), hvd.rank())
    dev_ds = build_eval_dataset(cfg.dev, 256, cfg.max_len)

    model = protcnn(cfg.num_families)
    optimizer = make_optimizer(cfg)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(seqs, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(seqs, training=True)
            loss = loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    def evaluate():
        correct = total = 0
        for seqs, labels in dev_ds:
            pred = tf.argmax(model(seqs, training=False), -1)
            correct += int(tf.reduce_sum(tf.cast(pred == labels, tf.int32)))
            total += int(tf.size(labels))
        return correct / max(total, 1)

    t0 = time.time()
    running = []
    for step, (seqs, labels) in enumerate(train_ds.take(cfg.total_steps)):
        loss = train_step(seqs, labels, step == 0)
        running.append(loss)
        if (step + 1) % 500 == 0:
            mean_loss = hvd.allreduce(tf.reduce_mean(running), name="train_loss")
            running = []
            if hvd.rank() == 0:
                print(f"step {step + 1}: loss {float(mean_loss):.4f} ({time.time() - t0:.0f}s)", flush=True)
        if (step + 1) % cfg.eval_every == 0 and hvd.rank() == 0:
            print(f"step {step + 1}: dev accuracy {evaluate():.4f}", flush=True)
            os.makedirs(cfg.out, exist_ok=True)
            model.save_weights(os.path.join(cfg.out, f"step{step + 1:07d}.weights.h5"))


if __name__ == "__main__":
    main()
