import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd
from absl import logging

from textft.evaluation import evaluate

_xent = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def fit(model, optimizer, train_ds, valid_ds, epochs, patience, manager=None, tag=""):
    @tf.function
    def step(ids, labels):
        with tf.GradientTape() as tape:
            loss = _xent(labels, model(ids, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    best, bad = float("inf"), 0
    for epoch in range(epochs):
        start = time.time()
        for ids, labels in train_ds:
            loss = step(ids, labels)
        metrics = evaluate(model, valid_ds)
        logging.info("%s epoch %d: train_loss=%.4f valid=%s (%.0fs)", tag, epoch, float(loss),
                     metrics, time.time() - start)
        if metrics["loss"] < best:
            best, bad = metrics["loss"], 0
            if manager is not None:
                manager.save()
        else:
            bad += 1
            if bad >= patience:
                logging.info("%s: early stop at epoch %d", tag, epoch)
                break
    return best
