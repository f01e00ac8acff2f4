"""Bag-of-words sentiment model: dense training, one-shot magnitude pruning, sparse fine-tuning.

The global batch is fixed (so results do not depend on the number of workers);
each worker processes GLOBAL_BATCH // hvd.size() examples per step.

    horovodrun -np 4 python prune_finetune.py --data data/reviews_bow.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
_gpus = tf.config.experimental.list_physical_devices("GPU")
for _g in _gpus:
    tf.config.experimental.set_memory_growth(_g, True)
if _gpus:
    tf.config.experimental.set_visible_devices(_gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/reviews_bow.npz")
parser.add_argument("--global-batch", type=int, default=512)
parser.add_argument("--lr", type=float, default=2e-3, help="lr for the global batch")
parser.add_argument("--dense-epochs", type=int, default=6)
parser.add_argument("--sparse-epochs", type=int, default=3)
parser.add_argument("--sparsity", type=float, default=0.8)
parser.add_argument("--out", default="models")
FLAGS = parser.parse_args()

LOCAL_BATCH = FLAGS.global_batch // hvd.size()

data = np.load(FLAGS.data)
x_train, y_train = data["x_train"].astype("float32"), data["y_train"].astype("int32")
x_test, y_test = data["x_test"].astype("float32"), data["y_test"].astype("int32")

# identical shuffle on every worker, then worker i takes every size-th example of an equal-length prefix
order = np.random.RandomState(2024).permutation(len(x_train))
order = order[: len(order) - len(order) % FLAGS.global_batch]
mine = order[hvd.rank()::hvd.size()]
train_ds = (tf.data.Dataset.from_tensor_slices((x_train[mine], y_train[mine]))
            .shuffle(len(mine), reshuffle_each_iteration=True)
            .batch(LOCAL_BATCH, drop_remainder=True))

model = tf.keras.Sequential([
    tf.keras.layers.Input((x_train.shape[1],)),
    tf.keras.layers.Dense(512, activation="relu", name="fc1"),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(128, activation="relu", name="fc2"),
    tf.keras.layers.Dense(2, name="logits"),
])
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
masks = {}


def make_optimizer(lr):
    opt = tf.keras.optimizers.Adam(lr)
    opt.build(model.trainable_variables)
    # weights and (zero) slots are identical everywhere after this
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)
    return opt


@tf.function
def train_step(x, y, opt):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def apply_masks():
    for var in model.trainable_variables:
        if var.path in masks:
            var.assign(var * masks[var.path])


def test_accuracy():
    logits = model.predict(x_test, batch_size=2048, verbose=0)
    return float(np.mean(np.argmax(logits, axis=1) == y_test))


def run(opt, epochs, tag):
    for epoch in range(epochs):
        for x, y in train_ds:
            loss = train_step(x, y, opt)
            apply_masks()
        acc = test_accuracy()  # full test set on every worker
        if hvd.rank() == 0:
            print(f"{tag} epoch {epoch}: last loss {loss.numpy():.4f}  test acc {acc:.4f}", flush=True)


run(make_optimizer(FLAGS.lr), FLAGS.dense_epochs, "dense")

# one-shot global magnitude pruning of the two hidden kernels (weights are identical on all ranks)
kernels = [v for v in model.trainable_variables if v.path.endswith(("fc1/kernel", "fc2/kernel"))]
threshold = np.quantile(np.concatenate([np.abs(k.numpy()).ravel() for k in kernels]), FLAGS.sparsity)
for k in kernels:
    masks[k.path] = tf.cast(tf.abs(k) > threshold, k.dtype)
apply_masks()

run(make_optimizer(FLAGS.lr * 0.1), FLAGS.sparse_epochs, "sparse")

if hvd.rank() == 0:
    os.makedirs(FLAGS.out, exist_ok=True)
    model.save_weights(os.path.join(FLAGS.out, "sentiment_pruned.weights.h5"))
