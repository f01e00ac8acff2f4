import tensorflow as tf
import keras
import horovod.tensorflow as hvd

_xent = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def evaluate(model, dataset):
    acc = keras.metrics.SparseCategoricalAccuracy()
    loss = keras.metrics.Mean()
    for ids, labels in dataset:
        logits = model(ids, training=False)
        acc.update_state(labels, logits)
        loss.update_state(_xent(labels, logits))
    return {"accuracy": float(hvd.allreduce(acc.result(), name="valid_acc")),
            "loss": float(loss.result())}
