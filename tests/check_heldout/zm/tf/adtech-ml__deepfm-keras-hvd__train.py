"""DeepFM CTR model, Keras functional API with one Input per feature column.

horovodrun -np 4 python train.py --train data/train.parquet --valid data/valid.parquet
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from deepfm.callbacks import build_callbacks
from deepfm.data import load_frame, make_dataset
from deepfm.features import FEATURES
from deepfm.model import build_deepfm


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train.parquet")
    ap.add_argument("--valid", default="data/valid.parquet")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--warmup-epochs", type=int, default=2)
    ap.add_argument("--model-dir", default="models/deepfm")
    return ap.parse_args()


def main():
    args = parse()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_df = load_frame(args.train)
    valid_df = load_frame(args.valid)
    train_ds = make_dataset(train_df, args.batch_size, training=True)
    valid_ds = make_dataset(valid_df, args.batch_size, training=False)
    steps_per_epoch = len(train_df) // args.batch_size

    model = build_deepfm(FEATURES, embed_dim=8, hidden=(400, 400, 400))
    scaled_lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), keras.metrics.BinaryAccuracy(name="acc")])

    callbacks = build_callbacks(args.model_dir, scaled_lr, args.warmup_epochs, steps_per_epoch)
    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=valid_ds, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(args.model_dir, "deepfm_final.keras"))


if __name__ == "__main__":
    main()
