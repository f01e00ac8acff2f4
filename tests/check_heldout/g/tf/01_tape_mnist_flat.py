# Horovod + TF2 GradientTape, MNIST CNN.  Flat script, written for the cluster course.
# launch:  horovodrun -np 8 -H node1:4,node2:4 python 01_tape_mnist_flat.py --data /scratch/$USER/mnist.npz
import os

# pin one GPU per process before TF sees the devices (horovodrun/mpirun both export a local rank)
_local = os.environ.get("HOROVOD_LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
os.environ["CUDA_VISIBLE_DEVICES"] = _local
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default=os.path.expanduser("~/data/mnist.npz"))
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--ckpt-dir", default="./ckpt_mnist")
args = parser.parse_args()

hvd.init()
rank = hvd.rank()
world = hvd.size()

gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)

# ------------------------------------------------------------------ data
with np.load(args.data) as f:
    x_train, y_train = f["x_train"], f["y_train"]
    x_test, y_test = f["x_test"], f["y_test"]

x_train = (x_train[..., None] / 255.0).astype("float32")
x_test = (x_test[..., None] / 255.0).astype("float32")
y_train = y_train.astype("int64")
y_test = y_test.astype("int64")

train_ds = (
    tf.data.Dataset.from_tensor_slices((x_train, y_train))
    .shard(num_shards=world, index=rank)
    .shuffle(10000, reshuffle_each_iteration=True)
    .batch(args.batch_size)
    .prefetch(tf.data.AUTOTUNE)
)
# every rank scores the full test set (it is small)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(1000)

# ------------------------------------------------------------------ model
model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
    tf.keras.layers.Conv2D(64, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Dropout(0.25),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(128, activation="relu"),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(10),
])
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.Adam(args.lr * world)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
ckpt_prefix = os.path.join(args.ckpt_dir, "ckpt")


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # weights are only created by the first call, so broadcast right after it
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
    return loss


@tf.function
def eval_step(images, labels):
    logits = model(images, training=False)
    pred = tf.argmax(logits, axis=1)
    return tf.reduce_sum(tf.cast(tf.equal(pred, labels), tf.float32))


first = True
for epoch in range(args.epochs):
    t0 = time.time()
    losses = []
    for images, labels in train_ds:
        loss = train_step(images, labels, first)
        first = False
        losses.append(loss)

    # mean over this rank's batches, then over ranks
    epoch_loss = hvd.allreduce(tf.reduce_mean(tf.stack(losses)), name="epoch_loss")

    correct = 0.0
    for images, labels in test_ds:
        correct += float(eval_step(images, labels))
    test_acc = correct / len(x_test)

    if rank == 0:
        print("epoch %d  loss %.4f  test_acc %.4f  (%.1fs)"
              % (epoch + 1, float(epoch_loss), test_acc, time.time() - t0))
        os.makedirs(args.ckpt_dir, exist_ok=True)
        ckpt.save(ckpt_prefix)

if rank == 0:
    print("done")
