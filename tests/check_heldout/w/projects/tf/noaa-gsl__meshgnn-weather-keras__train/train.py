#!/usr/bin/env python
"""MeshGNN training, Keras 3 fit + horovod.tensorflow.keras.

Hera:  srun --ntasks-per-node=8 python train.py --epochs 40
"""
import argparse

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from meshgnn import config
from meshgnn.data import IncrementSequence, load_adjacency
from meshgnn.model import build_model
from meshgnn.training import callbacks, compile_model


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=config.DATA_DIR)
    ap.add_argument("--epochs", type=int, default=config.EPOCHS)
    ap.add_argument("--batch", type=int, default=config.BATCH_PER_RANK)
    ap.add_argument("--lr", type=float, default=config.BASE_LR)
    ap.add_argument("--ckpt-dir", default=config.CKPT_DIR)
    return ap.parse_args()


def main():
    args = parse()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train = IncrementSequence(args.data_dir, "train", args.batch, hvd.rank(), hvd.size(), shuffle=True)
    valid = IncrementSequence(args.data_dir, "valid", args.batch, hvd.rank(), hvd.size(), shuffle=False)
    adj = load_adjacency(args.data_dir)

    model = build_model(adj, config.N_VARS, config.HIDDEN, config.N_MP_STEPS)
    lr = compile_model(model, args.lr)
    if hvd.rank() == 0:
        print(f"{hvd.size()} ranks, {len(train)} train / {len(valid)} valid batches per rank, lr {lr:g}")

    model.fit(train, validation_data=valid, epochs=args.epochs,
              callbacks=callbacks(lr, ckpt_dir=args.ckpt_dir), verbose=2 if hvd.rank() == 0 else 0)

    scores = model.evaluate(valid, verbose=0, return_dict=True)
    scores = {k: float(hvd.allreduce(v, name=f"final_{k}")) for k, v in sorted(scores.items())}
    if hvd.rank() == 0:
        print("final validation (mean over ranks):", scores)


if __name__ == "__main__":
    main()
