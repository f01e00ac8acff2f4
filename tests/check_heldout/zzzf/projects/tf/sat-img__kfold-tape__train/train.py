import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from satcv.gpu import configure_gpus
from satcv.pipeline import assign_folds, fold_datasets
from satcv.net import landcover_net
from satcv.loop import make_train_step, evaluate

parser = argparse.ArgumentParser("land-cover k-fold (GradientTape + Horovod)")
parser.add_argument("--data", default="/scratch/eurosat/eurosat_64.npz")
parser.add_argument("--k", type=int, default=5)
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--patience", type=int, default=4)
parser.add_argument("--ckpt-root", default="ckpts")
parser.add_argument("--seed", type=int, default=0)


def main(args):
    hvd.init()
    n_gpu = configure_gpus()
    data = np.load(args.data)
    x, y = data["x"].astype("float32"), data["y"].astype("int64")
    folds = assign_folds(len(y), args.k, args.seed)
    if hvd.rank() == 0:
        print(f"{hvd.size()} workers, {n_gpu} visible GPUs per worker, {len(y)} tiles", flush=True)

    results = []
    for k in range(args.k):
        train_ds, val_ds, steps = fold_datasets(x, y, folds, k, args.batch, hvd.rank(), hvd.size(), args.seed)
        model = landcover_net(x.shape[-1], int(y.max()) + 1)
        optimizer = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
        train_step = make_train_step(model, optimizer)
        ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        manager = tf.train.CheckpointManager(ckpt, os.path.join(args.ckpt_root, f"fold_{k}"), max_to_keep=1)

        best_loss, bad = np.inf, 0
        for epoch in range(args.epochs):
            t0 = time.time()
            for step, (xb, yb) in enumerate(train_ds.take(steps)):
                loss = train_step(xb, yb, step == 0 and epoch == 0)
            val_loss, val_acc = evaluate(model, val_ds)
            if hvd.rank() == 0:
                print(f"fold {k} epoch {epoch} loss {float(loss):.4f} val_loss {val_loss:.4f} "
                      f"val_acc {val_acc:.4f} ({time.time() - t0:.1f}s)", flush=True)
            if val_loss < best_loss:
                best_loss, bad = val_loss, 0
                if hvd.rank() == 0:
                    manager.save()
            else:
                bad += 1
                if bad >= args.patience:
                    break
        results.append((best_loss, val_acc))

    if hvd.rank() == 0:
        losses, accs = zip(*results)
        print(f"CV val_loss {np.mean(losses):.4f}  val_acc {np.mean(accs):.4f}")


if __name__ == "__main__":
    main(parser.parse_args())
