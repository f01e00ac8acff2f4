"""Churn model pipeline: train (Horovod, Keras fit) -> temperature calibration -> export.

    horovodrun -np 4 python pipeline.py --data data/churn_features.npz --epochs 20
"""
import argparse
import json
import os

import numpy as np
import keras

from churn import hvd_utils
from churn.calibrate import fit_temperature, expected_calibration_error
from churn.features import load_features, rank_slice
from churn.model import build_model

hvd = hvd_utils.hvd


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/churn_features.npz")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--export-dir", default="export")
    return ap.parse_args()


def main():
    args = cli()
    hvd_utils.init_horovod()

    feats = load_features(args.data)
    x_tr, y_tr = rank_slice(feats["x_train"], feats["y_train"], seed=11)
    x_va, y_va = rank_slice(feats["x_val"], feats["y_val"], seed=12)

    model = build_model(x_tr.shape[1])
    scaled_lr = args.lr * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr)),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")])

    callbacks = hvd_utils.standard_callbacks(scaled_lr, args.warmup_epochs)
    if hvd_utils.is_chief():
        os.makedirs(args.export_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.export_dir, "best.keras"),
                                                         monitor="val_loss", save_best_only=True))

    model.fit(x_tr, y_tr, batch_size=args.batch_size, epochs=args.epochs,
              validation_data=(x_va, y_va), callbacks=callbacks,
              verbose=2 if hvd_utils.is_chief() else 0)

    # ---- calibration stage: every rank fits T on the full validation set (same result everywhere) ----
    logits_val = model.predict(feats["x_val"], batch_size=4096, verbose=0)
    temperature = fit_temperature(logits_val, feats["y_val"])
    logits_test = model.predict(feats["x_test"], batch_size=4096, verbose=0)
    ece_before = expected_calibration_error(logits_test, feats["y_test"])
    ece_after = expected_calibration_error(logits_test / temperature, feats["y_test"])
    acc = float(np.mean(np.argmax(logits_test, 1) == feats["y_test"]))

    if hvd_utils.is_chief():
        print(f"test acc {acc:.4f}  T={temperature:.3f}  ECE {ece_before:.4f} -> {ece_after:.4f}")
        model.save(os.path.join(args.export_dir, "model.keras"))
        with open(os.path.join(args.export_dir, "calibration.json"), "w") as f:
            json.dump({"temperature": temperature, "ece": ece_after, "test_acc": acc}, f, indent=2)


if __name__ == "__main__":
    main()
