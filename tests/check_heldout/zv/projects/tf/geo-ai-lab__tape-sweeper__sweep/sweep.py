#!/usr/bin/env python
# Land-cover patch classifier: sweep over model x optimizer x lr with a custom tape loop.
# horovodrun -np 4 python sweep.py --data /data/eurosat_np --lrs 1e-4 5e-4 1e-3
import argparse
import json
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from sweeper.models import ZOO
from sweeper.optim import build_optimizer
from sweeper.steps import make_train_step, make_eval_step


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--models", nargs="+", default=["small_cnn"], choices=sorted(ZOO))
    ap.add_argument("--optimizers", nargs="+", default=["adam"])
    ap.add_argument("--lrs", nargs="+", type=float, default=[1e-4, 5e-4, 1e-3])
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--patience", type=int, default=4)
    ap.add_argument("--out", default="sweep_results")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    X = np.load(os.path.join(args.data, "X_train.npy")).astype("float32") / 10000.0
    Y = np.load(os.path.join(args.data, "y_train.npy")).astype("int64")
    Xv = np.load(os.path.join(args.data, "X_val.npy")).astype("float32") / 10000.0
    Yv = np.load(os.path.join(args.data, "y_val.npy")).astype("int64")
    n_classes = int(Y.max()) + 1

    train_ds = (tf.data.Dataset.from_tensor_slices((X, Y)).shard(hvd.size(), hvd.rank())
                .shuffle(4096, seed=hvd.rank()).batch(args.batch_size, drop_remainder=True)
                .prefetch(tf.data.AUTOTUNE))
    val_ds = tf.data.Dataset.from_tensor_slices((Xv, Yv)).shard(hvd.size(), hvd.rank()).batch(256)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    leaderboard = []
    for model_name in args.models:
        for opt_name in args.optimizers:
            for lr in args.lrs:
                tag = f"{model_name}-{opt_name}-lr{lr:g}"
                keras.utils.set_random_seed(1)
                model = ZOO[model_name](X.shape[-1], n_classes)
                optimizer = build_optimizer(opt_name, lr * hvd.size())
                train_step = make_train_step(model, optimizer, loss_fn)
                eval_step = make_eval_step(model)

                best, bad, t0 = 0.0, 0, time.time()
                for epoch in range(args.epochs):
                    for step, (x, y) in enumerate(train_ds):
                        loss = train_step(x, y)
                        if epoch == 0 and step == 0:
                            hvd.broadcast_variables(model.variables, root_rank=0)
                            hvd.broadcast_variables(optimizer.variables, root_rank=0)
                    correct, total = 0.0, 0.0
                    for x, y in val_ds:
                        c, n = eval_step(x, y)
                        correct, total = correct + c, total + n
                    acc = float(hvd.allreduce(correct, op=hvd.Sum) / hvd.allreduce(total, op=hvd.Sum))
                    if acc > best:
                        best, bad = acc, 0
                        if hvd.rank() == 0:
                            os.makedirs(args.out, exist_ok=True)
                            model.save_weights(os.path.join(args.out, f"{tag}.weights.h5"))
                    else:
                        bad += 1
                    if hvd.rank() == 0:
                        print(f"{tag} ep{epoch} loss={float(loss):.4f} val_acc={acc:.4f}")
                    if bad >= args.patience:
                        break
                leaderboard.append({"tag": tag, "model": model_name, "optimizer": opt_name, "lr": lr,
                                    "best_val_acc": best, "minutes": (time.time() - t0) / 60})

    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "leaderboard.json"), "w") as f:
            json.dump(sorted(leaderboard, key=lambda r: -r["best_val_acc"]), f, indent=2)


if __name__ == "__main__":
    main()
