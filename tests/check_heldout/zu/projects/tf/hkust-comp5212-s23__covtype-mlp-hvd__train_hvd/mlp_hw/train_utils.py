import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf


def accuracy(model, ds):
    correct, total = 0, 0
    for x, y in ds:
        pred = tf.argmax(model(x, training=False), axis=-1)
        correct += int(tf.reduce_sum(tf.cast(tf.equal(pred, y), tf.int64)))
        total += int(tf.shape(y)[0])
    return correct / total


def plot_history(hist, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.5))
    ax[0].plot(hist["loss"]); ax[0].set_title("train loss")
    ax[1].plot(hist["val_acc"]); ax[1].set_title("val accuracy")
    for a in ax:
        a.set_xlabel("epoch")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def confusion(model, ds, num_classes):
    cm = np.zeros((num_classes, num_classes), dtype=np.int64)
    for x, y in ds:
        pred = tf.argmax(model(x, training=False), axis=-1).numpy()
        np.add.at(cm, (y.numpy(), pred), 1)
    return cm
