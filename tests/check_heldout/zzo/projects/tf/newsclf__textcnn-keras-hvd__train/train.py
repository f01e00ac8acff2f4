#!/usr/bin/env python
"""TextCNN news-topic classifier (AG News) trained with Keras 3 + Horovod.

Hyper-parameters live in newsclf/settings.py.
"""
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from newsclf import settings
from newsclf.data import build_vocab, encode, load_split, to_dataset
from newsclf.model import textcnn
from newsclf.optim import build_optimizer


def configure_gpus():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main():
    hvd.init()
    configure_gpus()

    train_tokens, y_train = load_split(settings.DATA_DIR, "train")
    test_tokens, y_test = load_split(settings.DATA_DIR, "test")
    vocab = build_vocab(train_tokens, settings.VOCAB_SIZE)
    x_train = encode(train_tokens, vocab, settings.SEQ_LEN)
    x_test = encode(test_tokens, vocab, settings.SEQ_LEN)

    train_ds = to_dataset(x_train, y_train, settings.BATCH_SIZE, hvd.size(), hvd.rank(), train=True)
    val_ds = to_dataset(x_test, y_test, settings.BATCH_SIZE, hvd.size(), hvd.rank(), train=False)
    steps = len(x_train) // (settings.BATCH_SIZE * hvd.size())

    model = textcnn(settings.VOCAB_SIZE, settings.SEQ_LEN, settings.EMBED_DIM, settings.NUM_CLASSES)
    model.compile(optimizer=build_optimizer(),
                  loss=keras.losses.CategoricalCrossentropy(label_smoothing=settings.LABEL_SMOOTHING),
                  metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=settings.WARMUP_EPOCHS, verbose=1),
        keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=3, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(settings.MODEL_DIR, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(settings.MODEL_DIR, "best.keras"),
                                                         monitor="val_accuracy", save_best_only=True))

    one_hot = lambda x, y: (x, tf.one_hot(y, settings.NUM_CLASSES))
    model.fit(train_ds.map(one_hot), validation_data=val_ds.map(one_hot), steps_per_epoch=steps,
              epochs=settings.EPOCHS, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(settings.MODEL_DIR, "final.keras"))


if __name__ == "__main__":
    main()
