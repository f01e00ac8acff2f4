# Margin-based active learning, TF2 custom loop + horovod
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from margin.opts import get_opts
from margin.data import load_npz, make_train_ds, make_eval_ds
from margin.net import build_net
from margin.ckpt import RoundSaver
from margin.metrics import GlobalMean

opts = get_opts()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, y_train), (x_test, y_test) = load_npz(opts.data)
num_classes = int(y_train.max()) + 1
rs = np.random.RandomState(opts.seed)
perm = rs.permutation(len(x_train))
labeled_idx = perm[:opts.n_start]
pool_idx = perm[opts.n_start:]

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy()
saver = RoundSaver(opts.out)


def train_round(model, optimizer, ds):
    @tf.function
    def step(x, y, first_batch):
        with tf.GradientTape() as tape:
            probs = model(x, training=True)
            loss = loss_fn(y, probs)
        if opts.hvd_tape:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    first = True
    for ep in range(opts.epochs):
        for x, y in ds:
            loss = step(x, y, first)
            first = False
    return loss


def margins(model, x):
    p = model.predict(x, batch_size=2048, verbose=0)
    p.sort(axis=1)
    return p[:, -1] - p[:, -2]


history = []
for rnd in range(opts.rounds):
    t0 = time.time()
    model = build_net(x_train.shape[1:], num_classes)
    optimizer = tf.keras.optimizers.Adam(opts.lr * hvd.size())
    ds = make_train_ds(x_train[labeled_idx], y_train[labeled_idx], opts.batch_size, seed=rnd)
    last_loss = hvd.allreduce(train_round(model, optimizer, ds), name="last_loss")

    acc_metric = GlobalMean()
    for x, y in make_eval_ds(x_test, y_test, 512):
        pred = tf.argmax(model(x, training=False), axis=1)
        acc_metric.update(tf.cast(tf.equal(pred, y), tf.float32))
    test_acc = acc_metric.result()

    saver.save(rnd, model, labeled_idx, pool_idx)
    if hvd.rank() == 0:
        print("round %2d | labeled %5d | loss %.4f | test_acc %.4f | %.1fs"
              % (rnd, len(labeled_idx), float(last_loss), test_acc, time.time() - t0))
    history.append((rnd, len(labeled_idx), test_acc))

    m = margins(model, x_train[pool_idx])
    take = np.argsort(m, kind="stable")[:opts.query]
    labeled_idx = np.concatenate([labeled_idx, pool_idx[take]])
    pool_idx = np.delete(pool_idx, take)

if hvd.rank() == 0:
    with open(os.path.join(opts.out, "history.tsv"), "w") as f:
        for h in history:
            f.write("%d\t%d\t%.4f\n" % h)
