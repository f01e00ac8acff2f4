"""Cassava leaf disease: 5-fold CNN ensemble, horovod.tensorflow.keras + model.fit.

horovodrun -np 4 python train_folds.py --data data/cassava_128.npz
"""
import argparse
import json
import os

import numpy as np
import keras
import horovod.tensorflow.keras as hvd

from cassava.hvd_utils import init_horovod, is_chief
from cassava.data import load_npz, fold_ids, make_dataset
from cassava.model import build_model
from cassava.callbacks import fold_callbacks


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/cassava_128.npz")
    p.add_argument("--out", default="folds_out")
    p.add_argument("--n-folds", type=int, default=5)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args()


def main():
    args = parse()
    rank, size = init_horovod()
    images, labels = load_npz(args.data)
    n_classes = int(labels.max()) + 1
    folds = fold_ids(labels, args.n_folds)
    oof = np.zeros((len(labels), n_classes), np.float32)
    history = {}
    if is_chief():
        os.makedirs(args.out, exist_ok=True)

    for k in range(args.n_folds):
        keras.backend.clear_session()
        tr, va = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        steps = len(tr) // (args.batch_size * size)
        val_steps = max(1, len(va) // (args.batch_size * size))
        train_ds = make_dataset(images[tr], labels[tr], args.batch_size, training=True)
        val_ds = make_dataset(images[va], labels[va], args.batch_size, training=False)

        model = build_model(images.shape[1:], n_classes)
        scaled_lr = args.lr * size
        opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

        ckpt = os.path.join(args.out, f"fold{k}.weights.h5")
        h = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
                      validation_data=val_ds, validation_steps=val_steps,
                      callbacks=fold_callbacks(k, scaled_lr, steps, ckpt),
                      verbose=2 if is_chief() else 0)
        history[k] = {m: [float(v) for v in vals] for m, vals in h.history.items()}

        if is_chief():
            # restore_best_weights already put the best epoch back; predict the whole held-out fold
            oof[va] = model.predict(images[va].astype(np.float32) / 255.0, batch_size=256, verbose=0)
            print(f"fold {k}: best val_loss {min(h.history['val_loss']):.4f}")

    if is_chief():
        acc = float((oof.argmax(1) == labels).mean())
        print(f"OOF accuracy over {args.n_folds} folds: {acc:.4f}")
        np.save(os.path.join(args.out, "oof_probs.npy"), oof)
        with open(os.path.join(args.out, "history.json"), "w") as fh:
            json.dump(history, fh)


if __name__ == "__main__":
    main()
