"""Crop yield regression - GroupKFold by farm, out-of-fold predictions, fold-averaged test.

Group project for 'Machine Learning for Agriculture'. Multi-GPU:
    horovodrun -np 4 python train_oof.py --train data/train.csv --test data/test.csv
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from common import hvd_helpers as hh
from common.io import write_rows
from yieldkit.data import read, group_kfold
from yieldkit.model import mlp
from yieldkit.loop import make_step, sse


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/train.csv")
    p.add_argument("--test", default="data/test.csv")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--global-batch", type=int, default=1024,
                   help="summed over workers; each worker takes global_batch // size")
    p.add_argument("--lr", type=float, default=2e-3, help="lr for the global batch")
    p.add_argument("--out", default="out/mlp")
    p.add_argument("--seed", type=int, default=11)
    return p.parse_args()


def train_fold(k, X, y, folds, X_test, args):
    tr = hh.equal_strided_shard(np.where(folds != k)[0], args.seed + k)
    va = np.where(folds == k)[0]
    per_worker = args.global_batch // hvd.size()

    keras.utils.set_random_seed(args.seed + 100 * k + hvd.rank())  # dropout masks differ per worker
    model = mlp(X.shape[1])
    model.get_layer("norm").adapt(X[folds != k])
    optimizer = keras.optimizers.AdamW(learning_rate=args.lr, weight_decay=1e-4)
    optimizer.build(model.trainable_variables)
    hh.sync_from_chief(model, optimizer)
    step = make_step(model, optimizer)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(args.out, f"fold{k}"), max_to_keep=1)
    best = np.inf
    n_steps = len(tr) // per_worker
    for epoch in range(args.epochs):
        order = np.random.RandomState(epoch).permutation(tr)
        for i in range(n_steps):
            b = order[i * per_worker:(i + 1) * per_worker]
            loss = step(tf.constant(X[b]), tf.constant(y[b]))
        # each worker scores a strided slice of the fold; sums are combined
        mine = va[hvd.rank()::hvd.size()]
        tot, cnt = hh.global_sum(sse(model, X[mine], y[mine]), len(mine))
        rmse = float(np.sqrt(tot / cnt))
        if rmse < best:
            best = rmse
            if hh.is_chief():
                manager.save()
        if hh.is_chief() and epoch % 5 == 0:
            print(f"fold {k} epoch {epoch} train_mse {float(loss):.4f} val_rmse {rmse:.4f}", flush=True)

    ckpt.restore(manager.latest_checkpoint) if hh.is_chief() else None
    hh.sync_from_chief(model, optimizer)
    oof = np.squeeze(model.predict(X[va], batch_size=4096, verbose=0), -1)
    test = np.squeeze(model.predict(X_test, batch_size=4096, verbose=0), -1)
    return va, oof, test, best


def main():
    args = parse()
    hh.setup()
    field_ids, farms, X, y = read(args.train)
    test_ids, _, X_test, _ = read(args.test)
    folds = group_kfold(farms, args.folds)

    oof = np.zeros_like(y)
    test_pred = np.zeros(len(X_test), dtype=np.float32)
    for k in range(args.folds):
        va, p_va, p_te, best = train_fold(k, X, y, folds, X_test, args)
        oof[va] = p_va
        test_pred += p_te / args.folds
        if hh.is_chief():
            print(f"fold {k} best val rmse {best:.4f}")

    if hh.is_chief():
        print(f"OOF RMSE {np.sqrt(np.mean((oof - y) ** 2)):.4f}")
        write_rows(os.path.join(args.out, "oof.csv"), ["field_id", "oof"], zip(field_ids, oof.round(4)))
        write_rows(os.path.join(args.out, "submission.csv"), ["field_id", "yield_t_ha"],
                   zip(test_ids, test_pred.round(4)))


if __name__ == "__main__":
    main()
