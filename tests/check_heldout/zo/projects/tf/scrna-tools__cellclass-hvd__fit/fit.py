"""Cell-type classification from scRNA-seq counts: MLP on HVGs, stratified 5-fold CV.

Run on 4 GPUs:
    horovodrun -np 4 python fit.py --counts data/pbmc68k.npz --folds 5
"""
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from cellclass.callbacks import training_callbacks
from cellclass.expr import encode_labels, highly_variable, load_counts, normalize_log1p
from cellclass.model import build_mlp
from cellclass.optim import make_optimizer
from cellclass.report import evaluate_fold
from cellclass.split import stratified_kfold, worker_slice


def get_parser():
    p = argparse.ArgumentParser(description="scRNA-seq cell type classifier (Horovod)")
    p.add_argument("--counts", default="data/pbmc68k.npz")
    p.add_argument("--n-hvg", type=int, default=2000)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--optimizer", default="adam", choices=["adam", "sgd"])
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--out", default="results/cellclass")
    p.add_argument("--seed", type=int, default=0)
    return p


def main(args):
    hvd.init()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    verbose = 2 if hvd.rank() == 0 else 0

    counts, cell_type, genes = load_counts(args.counts)
    x = normalize_log1p(counts)
    x = x[:, highly_variable(x, args.n_hvg)]
    y, classes = encode_labels(cell_type)
    if hvd.rank() == 0:
        print(f"{x.shape[0]} cells, {x.shape[1]} HVGs, {len(classes)} cell types, {hvd.size()} workers")

    summary = []
    for fold, (tr, va) in enumerate(stratified_kfold(y, args.folds, seed=args.seed)):
        keras.backend.clear_session()
        keras.utils.set_random_seed(args.seed + fold)
        mine = worker_slice(tr, hvd.rank(), hvd.size(), seed=args.seed + fold)
        counts_tr = np.bincount(y[tr], minlength=len(classes))
        class_weight = {c: float(len(tr) / (len(classes) * max(n, 1))) for c, n in enumerate(counts_tr)}

        model = build_mlp(x.shape[1], len(classes))
        opt, scaled_lr = make_optimizer(args.lr, args.optimizer)
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit(x[mine], y[mine], batch_size=args.batch_size, epochs=args.epochs,
                  validation_data=(x[va], y[va]), class_weight=class_weight,
                  callbacks=training_callbacks(scaled_lr, args.out, fold), verbose=verbose)

        if hvd.rank() == 0:
            res = evaluate_fold(model, x[va], y[va], classes)
            print(f"fold {fold}: acc {res['acc']:.4f} macro-F1 {res['macro_f1']:.4f}\n{res['report']}")
            summary.append({"fold": fold, "acc": res["acc"], "macro_f1": res["macro_f1"]})

    if hvd.rank() == 0:
        with open(os.path.join(args.out, "cv_summary.json"), "w") as f:
            json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main(get_parser().parse_args())
