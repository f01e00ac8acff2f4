import argparse
import os
import sys

import numpy as np
import tensorflow as tf

from windcv.distrib import setup, is_root
from windcv.engine import FoldEngine
from windcv.features import make_features, blocked_folds
from windcv.model import make_regressor


def get_args(argv=None):
    ap = argparse.ArgumentParser(description="blocked k-fold NN for the stack")
    ap.add_argument("--scada", default="data/scada_hourly.npz")
    ap.add_argument("--k", type=int, default=6)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch", type=int, default=256, help="per worker")
    ap.add_argument("--lr", type=float, default=1e-3, help="lr for one worker")
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--out", default="stack/nn")
    return ap.parse_args(argv)


def run(args):
    rank, world = setup()
    d = np.load(args.scada)
    X, y = make_features(d["power"], d["wind_speed"], d["wind_dir"])
    n_test = len(X) // 10
    X_test, y_test = X[-n_test:], y[-n_test:]
    X, y = X[:-n_test], y[:-n_test]
    oof = np.full(len(y), np.nan, np.float32)
    test_pred = np.zeros(n_test, np.float32)
    os.makedirs(args.out, exist_ok=True)

    for k, (tr, va) in enumerate(blocked_folds(len(y), args.k)):
        # every worker takes its own contiguous share of the shuffled train rows
        tr = np.random.RandomState(k).permutation(tr)
        share = len(tr) // world
        mine = tr[rank * share:(rank + 1) * share]
        steps = share // args.batch

        model = make_regressor(X.shape[1])
        model.get_layer("norm").adapt(X[tr])
        engine = FoldEngine(model, lr=args.lr * world)
        ckpt = tf.train.Checkpoint(model=model)
        best, wait, best_path = np.inf, 0, None
        for epoch in range(args.epochs):
            order = np.random.RandomState(1000 * k + epoch + rank).permutation(mine)
            for s in range(steps):
                b = order[s * args.batch:(s + 1) * args.batch]
                engine.train_step(X[b], y[b])
            mae = engine.evaluate(X[va], y[va])
            if mae < best:
                best, wait = mae, 0
                if is_root():
                    best_path = ckpt.write(os.path.join(args.out, f"fold{k}"))
            else:
                wait += 1
            if is_root():
                print(f"[k={k}] epoch {epoch} val MAE {mae:.4f} best {best:.4f}", flush=True)
            if wait >= args.patience:
                break

        if is_root():
            ckpt.read(best_path).expect_partial()
            oof[va] = model.predict(X[va], batch_size=4096, verbose=0).ravel()
            test_pred += model.predict(X_test, batch_size=4096, verbose=0).ravel() / args.k

    if is_root():
        m = ~np.isnan(oof)
        print(f"OOF MAE {np.abs(oof[m] - y[m]).mean():.4f} | test MAE of {args.k}-fold mean "
              f"{np.abs(test_pred - y_test).mean():.4f}")
        np.savez(os.path.join(args.out, "nn_preds.npz"), oof=oof, test=test_pred)


if __name__ == "__main__":
    run(get_args(sys.argv[1:]))
