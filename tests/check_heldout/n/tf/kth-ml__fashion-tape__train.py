"""Fashion-MNIST CNN, custom training loop, Horovod (horovod.tensorflow).

course project, DD2424 -- run with:  horovodrun -np 2 python train.py --epochs 15
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=15)
p.add_argument("--batch-size", type=int, default=128)
p.add_argument("--lr", type=float, default=0.001)
p.add_argument("--ckpt-dir", default="./ckpt_fashion")
args = p.parse_args()

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    # one GPU per process
    os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data(
    path="fashion-mnist-%d.npz" % hvd.rank())
x_train = (x_train[..., None] / 255.0).astype(np.float32)
x_test = (x_test[..., None] / 255.0).astype(np.float32)

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train.astype(np.int64)))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000, seed=hvd.rank())
            .batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
test_ds = (tf.data.Dataset.from_tensor_slices((x_test, y_test.astype(np.int64)))
           .shard(hvd.size(), hvd.rank())
           .batch(512))

model = tf.keras.Sequential([
    tf.keras.layers.Input((28, 28, 1)),
    tf.keras.layers.Conv2D(32, 3, activation="relu"),
    tf.keras.layers.Conv2D(64, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Dropout(0.25),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(128, activation="relu"),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(10),
])
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.Adam(args.lr * hvd.size())

checkpoint = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(checkpoint, args.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


test_acc = tf.keras.metrics.SparseCategoricalAccuracy()
step = 0
for epoch in range(args.epochs):
    t0 = time.time()
    for images, labels in train_ds:
        loss = train_step(images, labels, step == 0)
        step += 1
        if step % 100 == 0 and hvd.rank() == 0:
            print("step %d loss %.4f" % (step, loss))

    test_acc.reset_state()
    for images, labels in test_ds:
        test_acc.update_state(labels, model(images, training=False))
    if hvd.rank() == 0:
        print("epoch %d: test accuracy %.4f (%.1fs)" % (epoch, test_acc.result(), time.time() - t0))
        manager.save()
