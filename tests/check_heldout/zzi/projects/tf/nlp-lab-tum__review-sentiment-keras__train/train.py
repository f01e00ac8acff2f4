"""TextCNN sentiment classifier for product reviews.

horovodrun -np 4 python train.py --data data/reviews_tok --epochs 8
"""
import argparse
import logging
import os

import keras
import horovod.tensorflow.keras as hvd

from textclf.dist import setup_horovod, is_root
from textclf.vectorize import load_ids, review_dataset
from textclf.model import sentiment_model
from textclf.callbacks import JsonHistory

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/reviews_tok")
ap.add_argument("--vocab", type=int, default=30000)
ap.add_argument("--max-len", type=int, default=256)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=8)
ap.add_argument("--out", default="runs/textcnn")


def main(args):
    rank, size = setup_horovod()

    x_tr, y_tr = load_ids(args.data, "train", args.max_len)
    x_va, y_va = load_ids(args.data, "dev", args.max_len)
    train_ds = review_dataset(x_tr, y_tr, args.batch_size, rank, size, train=True)
    dev_ds = review_dataset(x_va, y_va, args.batch_size, rank, size, train=False)
    steps = len(x_tr) // (args.batch_size * size)

    model = sentiment_model(args.vocab, args.max_len)
    base_opt = keras.optimizers.Adam(learning_rate=args.lr * size)
    dist_opt = hvd.DistributedOptimizer(base_opt)
    model.compile(optimizer=base_opt, loss="binary_crossentropy",
                  metrics=["accuracy", keras.metrics.AUC(name="auc")])

    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * size, warmup_epochs=1,
                                                 steps_per_epoch=steps),
    ]
    if is_root():
        os.makedirs(args.out, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(args.out, "textcnn.keras")),
                JsonHistory(args.out)]

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
              validation_data=dev_ds, callbacks=cbs, verbose=1 if is_root() else 0)


if __name__ == "__main__":
    main(ap.parse_args())
