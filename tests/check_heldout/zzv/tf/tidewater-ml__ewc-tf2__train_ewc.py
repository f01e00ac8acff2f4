"""Permuted-MNIST with Elastic Weight Consolidation, TF2 custom loop + Horovod."""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
_gpus = tf.config.experimental.list_physical_devices("GPU")
if _gpus:
    tf.config.experimental.set_visible_devices(_gpus[hvd.local_rank()], "GPU")

FLAGS = argparse.ArgumentParser()
FLAGS.add_argument("--mnist", default="~/.keras/datasets/mnist.npz")
FLAGS.add_argument("--num-tasks", type=int, default=5)
FLAGS.add_argument("--epochs-per-task", type=int, default=3)
FLAGS.add_argument("--batch-size", type=int, default=100)
FLAGS.add_argument("--lr", type=float, default=1e-3)
FLAGS.add_argument("--ewc-lambda", type=float, default=400.0)
FLAGS.add_argument("--fisher-samples", type=int, default=600)
FLAGS.add_argument("--logdir", default="./logs/ewc")
FLAGS.add_argument("--perm-seed", type=int, default=1234)
args = FLAGS.parse_args()

with np.load(os.path.expanduser(args.mnist)) as f:
    x_train = f["x_train"].reshape(-1, 784).astype("float32") / 255.0
    y_train = f["y_train"].astype("int64")
    x_test = f["x_test"].reshape(-1, 784).astype("float32") / 255.0
    y_test = f["y_test"].astype("int64")

# same permutations everywhere: generated from a fixed seed before any rank-specific work
perms = [np.arange(784)] + [np.random.RandomState(args.perm_seed + i).permutation(784)
                            for i in range(1, args.num_tasks)]

model = tf.keras.Sequential([
    tf.keras.layers.Dense(400, activation="relu"),
    tf.keras.layers.Dense(400, activation="relu"),
    tf.keras.layers.Dense(10),
])
model.build((None, 784))
opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt)

fisher = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
anchors = [tf.Variable(v, trainable=False) for v in model.trainable_variables]
have_penalty = tf.Variable(0.0, trainable=False)


def ewc_penalty():
    return tf.add_n([tf.reduce_sum(f * tf.square(v - a))
                     for f, v, a in zip(fisher, model.trainable_variables, anchors)])


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits) + have_penalty * (args.ewc_lambda / 2.0) * ewc_penalty()
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def estimate_fisher(x):
    """Empirical Fisher on this worker's samples, averaged over workers."""
    acc = [tf.zeros_like(v) for v in model.trainable_variables]
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            logits = model(x[i:i + 1], training=False)
            label = tf.random.categorical(logits, 1)[0]
            ll = -loss_fn(label, logits)
        g = tape.gradient(ll, model.trainable_variables)
        acc = [a + tf.square(gi) for a, gi in zip(acc, g)]
    return [hvd.allreduce(a / len(x), op=hvd.Average) for a in acc]


def accuracy(x, y):
    # shards of the test set differ by at most one sample: sum counts, not means
    xs, ys = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
    pred = tf.argmax(model(xs, training=False), axis=1)
    hits = tf.reduce_sum(tf.cast(tf.equal(pred, ys), tf.float32))
    total = hvd.allreduce(tf.constant([hits.numpy(), float(len(ys))]), op=hvd.Sum)
    return float(total[0] / total[1])


first = True
for task in range(args.num_tasks):
    xtr = x_train[:, perms[task]]
    per_worker = len(xtr) // hvd.size()
    steps = per_worker // args.batch_size
    ds = (tf.data.Dataset.from_tensor_slices((xtr, y_train))
          .shard(hvd.size(), hvd.rank())
          .shuffle(10000, seed=task)
          .batch(args.batch_size, drop_remainder=True)
          .take(steps))
    for epoch in range(args.epochs_per_task):
        t0 = time.time()
        for x, y in ds:
            loss = train_step(x, y, first)
            first = False
        if hvd.rank() == 0:
            print(f"task {task} epoch {epoch} loss {float(loss):.4f} {time.time() - t0:.1f}s")

    sub = xtr[hvd.rank()::hvd.size()][: args.fisher_samples // hvd.size()]
    new_f = estimate_fisher(sub)
    for f, nf, a, v in zip(fisher, new_f, anchors, model.trainable_variables):
        f.assign_add(nf)
        a.assign(v)
    have_penalty.assign(1.0)

    accs = [accuracy(x_test[:, perms[k]], y_test) for k in range(task + 1)]
    if hvd.rank() == 0:
        print(f"== after task {task}: " + " ".join(f"{a:.4f}" for a in accs))
        ckpt.save(os.path.join(args.logdir, f"task{task}", "ckpt"))
