"""Fashion-MNIST CNN with an EMA copy of the weights and SWA over the last epochs.

Global batch is fixed (GLOBAL_BATCH); each worker takes GLOBAL_BATCH // size of it, so the
learning rate does not depend on the number of workers.
"""
import argparse
import os

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

ap = argparse.ArgumentParser()
ap.add_argument("--global-batch", type=int, default=512)
ap.add_argument("--lr", type=float, default=0.1)
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--swa-start", type=int, default=20)
ap.add_argument("--ema-decay", type=float, default=0.998)
ap.add_argument("--out", default="weights")
args = ap.parse_args()

hvd.init()
for dev in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(dev, True)
if tf.config.list_physical_devices("GPU"):
    tf.config.set_visible_devices(tf.config.list_physical_devices("GPU")[hvd.local_rank()], "GPU")

local_batch = args.global_batch // hvd.size()
(xtr, ytr), (xte, yte) = keras.datasets.fashion_mnist.load_data()
xtr, xte = xtr[..., None] / 255.0, xte[..., None] / 255.0
n_steps = len(xtr) // args.global_batch
n_eval = len(xte) // args.global_batch

train_ds = (tf.data.Dataset.from_tensor_slices((xtr.astype("float32"), ytr.astype("int64")))
            .shuffle(len(xtr), seed=0, reshuffle_each_iteration=True)
            .shard(hvd.size(), hvd.rank())
            .batch(local_batch, drop_remainder=True)
            .take(n_steps))
test_ds = (tf.data.Dataset.from_tensor_slices((xte.astype("float32"), yte.astype("int64")))
           .shard(hvd.size(), hvd.rank())
           .batch(local_batch, drop_remainder=True)
           .take(n_eval))


def cnn():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(),
        keras.layers.Flatten(), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10),
    ])


model, ema_model, swa_model = cnn(), cnn(), cnn()
ema_model.set_weights(model.get_weights())
swa_model.set_weights(model.get_weights())
swa_n = 0
opt = keras.optimizers.SGD(learning_rate=args.lr, momentum=0.9, nesterov=True)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def step(x, y, first):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def update_ema(decay):
    for e, w in zip(ema_model.weights, model.weights):
        e.assign(decay * e + (1.0 - decay) * w)


def evaluate(net):
    acc = keras.metrics.SparseCategoricalAccuracy()
    for x, y in test_ds:
        acc.update_state(y, net(x, training=False))
    # equal number of equal batches on every worker, so the mean of the means is the global mean
    return float(hvd.allreduce(acc.result(), name="eval_acc"))


first = True
for epoch in range(args.epochs):
    for x, y in train_ds:
        step(x, y, first)
        if first:
            # weights were just replaced by rank 0's: restart the averaged copies from them
            ema_model.set_weights(model.get_weights())
            swa_model.set_weights(model.get_weights())
            first = False
        update_ema(args.ema_decay)
    if epoch >= args.swa_start:
        swa_n += 1
        swa_model.set_weights([(s * (swa_n - 1) + w) / swa_n
                               for s, w in zip(swa_model.get_weights(), model.get_weights())])
    scores = {name: evaluate(net) for name, net in
              (("model", model), ("ema", ema_model), ("swa", swa_model))}
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        print(f"epoch {epoch}: " + " ".join(f"{k} {v:.4f}" for k, v in scores.items()))
        model.save_weights(f"{args.out}/model.weights.h5")
        ema_model.save_weights(f"{args.out}/ema.weights.h5")
        if swa_n:
            swa_model.save_weights(f"{args.out}/swa.weights.h5")

if hvd.rank() == 0:
    np.save(os.path.join(args.out, "final_scores.npy"), np.array(list(scores.values())))
