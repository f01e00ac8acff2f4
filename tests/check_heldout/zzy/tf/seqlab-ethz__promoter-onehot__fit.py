"""Promoter vs. non-promoter classifier (one-hot DNA, 600 bp) trained with horovod + keras fit.

    horovodrun -np 4 python fit.py --train data/epd_train.fa --val data/epd_val.fa
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from promoter.data import load_fasta, to_dataset
from promoter.model import deepbind_like
from promoter.optim import build_optimizer


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/epd_train.fa")
    p.add_argument("--val", default="data/epd_val.fa")
    p.add_argument("--length", type=int, default=600)
    p.add_argument("--batch-size", type=int, default=100)
    p.add_argument("--optimizer", default="adam")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--outdir", default="results")
    return p


def main(argv=None):
    args = get_parser().parse_args(argv)
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = load_fasta(args.train, args.length)
    x_va, y_va = load_fasta(args.val, args.length)
    train_ds = to_dataset(x_tr, y_tr, args.batch_size, shuffle=True,
                          num_shards=hvd.size(), shard_index=hvd.rank())
    val_ds = to_dataset(x_va, y_va, 256, shuffle=False)  # full validation set on every worker

    model = deepbind_like(args.length)
    opt = build_optimizer(args.optimizer, args.lr)
    dist_opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auroc"), keras.metrics.AUC(curve="PR", name="auprc")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(args.outdir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.outdir, "promoter_cnn.weights.h5"), save_weights_only=True,
            monitor="val_auprc", mode="max", save_best_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.outdir, "history.csv")))

    model.fit(train_ds,
              steps_per_epoch=len(x_tr) // (args.batch_size * hvd.size()),
              epochs=args.epochs,
              validation_data=val_ds,
              callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print(dict(zip(model.metrics_names, model.evaluate(val_ds, verbose=0))))


if __name__ == "__main__":
    main()
