# PetFinder.my Pawpularity - train three models on one fold and blend them.
# DSCI capstone (group 4).  horovodrun -np 4 python train_ensemble.py --fold 0
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from paw import data, models
from paw.callbacks import build_callbacks
from paw.ensemble import fit_blend, rmse, write_submission

MODELS = ["cnn_small", "cnn_wide", "cnn_meta"]


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-csv", default="input/train.csv")
    ap.add_argument("--train-img", default="input/train_128.npy")
    ap.add_argument("--test-csv", default="input/test.csv")
    ap.add_argument("--test-img", default="input/test_128.npy")
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--out", default="ens_out")
    return ap.parse_args()


def setup_gpu():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main():
    args = get_args()
    setup_gpu()
    os.makedirs(args.out, exist_ok=True)

    ids, img, meta, y = data.load_split(args.train_csv, args.train_img)
    folds = data.stratified_folds(y)
    tr, va = np.where(folds != args.fold)[0], np.where(folds == args.fold)[0]
    train_ds = data.make_ds(img[tr], meta[tr], y[tr], args.bs, True, shard=(hvd.size(), hvd.rank()))
    val_ds = data.make_ds(img[va], meta[va], y[va], args.bs, False, shard=(hvd.size(), hvd.rank()))
    steps = len(tr) // (args.bs * hvd.size())
    val_steps = max(1, len(va) // (args.bs * hvd.size()))

    test_ids, test_img, test_meta, _ = data.load_split(args.test_csv, args.test_img)
    oof, test_preds, scores = [], [], {}
    for name in MODELS:
        model = models.build(name)
        opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
        model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse",
                      metrics=[keras.metrics.RootMeanSquaredError(name="rmse")])
        model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
                  validation_data=val_ds, validation_steps=val_steps,
                  callbacks=build_callbacks(name, args.out, args.epochs),
                  verbose=1 if hvd.rank() == 0 else 0)
        model.save(os.path.join(args.out, f"{name}.keras"))

        # every worker scores the full validation fold and the test set
        p_va = model.predict([img[va] / 255.0, meta[va]], batch_size=128, verbose=0)[:, 0]
        p_te = model.predict([test_img / 255.0, test_meta], batch_size=128, verbose=0)[:, 0]
        oof.append(p_va)
        test_preds.append(p_te)
        scores[name] = rmse(100 * p_va, 100 * y[va])

    w = fit_blend(oof, y[va])
    blend_va = np.stack(oof, 1) @ w
    scores["blend"] = rmse(100 * blend_va, 100 * y[va])
    if hvd.rank() == 0:
        print(json.dumps({"weights": dict(zip(MODELS, w.round(3).tolist())), "rmse": scores}, indent=2))
        write_submission(os.path.join(args.out, f"submission_fold{args.fold}.csv"), test_ids,
                         np.stack(test_preds, 1) @ w)


if __name__ == "__main__":
    main()
