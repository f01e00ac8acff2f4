"""Korean movie-review (NSMC) sentiment classifier, Keras 3 + Horovod.

    horovodrun -np 4 python train_keras.py --train data/ratings_train.txt --test data/ratings_test.txt
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from textcls import defaults
from textcls.data import read_tsv, make_vectorizer, make_dataset
from textcls.model import build_model
from textcls.callbacks import training_callbacks


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default=defaults.TRAIN_PATH)
    ap.add_argument("--test", default=defaults.TEST_PATH)
    ap.add_argument("--epochs", type=int, default=defaults.EPOCHS)
    ap.add_argument("--batch-size", type=int, default=defaults.BATCH_SIZE)
    ap.add_argument("--lr", type=float, default=defaults.LR)
    ap.add_argument("--model-dir", default="models/nsmc")
    return ap.parse_args()


def main():
    args = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    keras.utils.set_random_seed(defaults.SEED)

    train_texts, train_labels = read_tsv(args.train)
    test_texts, test_labels = read_tsv(args.test)
    vectorizer = make_vectorizer(train_texts)

    train_ds = make_dataset(train_texts, train_labels, vectorizer, args.batch_size, training=True)
    test_ds = make_dataset(test_texts, test_labels, vectorizer, args.batch_size, training=False)
    steps_per_epoch = len(train_texts) // (args.batch_size * hvd.size())
    val_steps = len(test_texts) // (args.batch_size * hvd.size())

    model = build_model(vectorizer.vocabulary_size())
    scaled_lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="binary_crossentropy", metrics=["accuracy"])

    model.fit(train_ds,
              steps_per_epoch=steps_per_epoch,
              validation_data=test_ds,
              validation_steps=val_steps,
              epochs=args.epochs,
              callbacks=training_callbacks(args.model_dir, scaled_lr, steps_per_epoch),
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(args.model_dir, "final.keras"))


if __name__ == "__main__":
    main()
