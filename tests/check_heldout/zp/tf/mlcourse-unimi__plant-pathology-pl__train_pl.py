"""Plant Pathology 2021 (FGVC8) - teacher / pseudo-label / student, custom TF2 loop.

Course: Machine Learning (UniMi), final project. Launch:
    horovodrun -np 2 python train_pl.py --data-dir /scratch/pp2021
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from plantpl.config import Config
from plantpl.data import load_npz, make_train_ds, make_eval_ds, make_pl_ds
from plantpl.model import small_effnet_like
from plantpl.steps import make_train_step, evaluate
from plantpl.pseudo import pseudo_label


def train_model(name, model, train_ds, val_ds, epochs, cfg):
    optimizer = keras.optimizers.Adam(learning_rate=cfg.lr)
    train_step = make_train_step(model, optimizer)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(cfg.ckpt_dir, name), max_to_keep=2)
    first = True
    best = -1.0
    for epoch in range(epochs):
        t0, losses = time.time(), []
        for x, y in train_ds:
            losses.append(float(train_step(x, y, tf.constant(first))))
            first = False
        f1 = evaluate(model, val_ds)
        if hvd.rank() == 0:
            print(f"[{name}] epoch {epoch} loss {np.mean(losses):.4f} val_f1 {f1:.4f} ({time.time() - t0:.0f}s)")
            if f1 > best:
                best = f1
                manager.save(checkpoint_number=epoch)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--epochs", type=int, default=None)
    cli = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = Config()
    if cli.data_dir:
        cfg.data_dir = cli.data_dir
    if cli.epochs:
        cfg.epochs_teacher = cfg.epochs_student = cli.epochs
    if hvd.rank() == 0:
        print(cfg.to_dict(), "global batch", cfg.global_batch)

    x_tr, y_tr = load_npz(os.path.join(cfg.data_dir, "train.npz"))
    x_va, y_va = load_npz(os.path.join(cfg.data_dir, "valid.npz"))
    x_unl, _ = load_npz(os.path.join(cfg.data_dir, "unlabelled.npz"))
    val_ds = make_eval_ds(x_va, y_va, cfg)

    keras.utils.set_random_seed(cfg.seed)
    teacher = small_effnet_like(cfg.img_size, cfg.n_classes)
    best_t = train_model("teacher", teacher, make_train_ds(x_tr, y_tr, cfg), val_ds, cfg.epochs_teacher, cfg)

    x_pl, y_pl = pseudo_label(teacher, x_unl, cfg.pl_threshold)
    if hvd.rank() == 0:
        print(f"teacher best f1 {best_t:.4f}; {len(x_pl)} / {len(x_unl)} unlabelled images pseudo-labelled")

    student = small_effnet_like(cfg.img_size, cfg.n_classes, width=48)
    best_s = train_model("student", student, make_pl_ds(x_tr, y_tr, x_pl, y_pl, cfg), val_ds,
                         cfg.epochs_student, cfg)
    if hvd.rank() == 0:
        print(f"student best f1 {best_s:.4f}")


if __name__ == "__main__":
    main()
