import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from growing import GrowthSchedule, build_mlp, widen
from growing.data import load_covtype, make_dataset
from growing.distributed import setup, sync, sum_all
from growing.history import History

ap = argparse.ArgumentParser(description="grow an MLP wider between stages (Net2Net), Horovod tape loop")
ap.add_argument("--data", default="data/covtype.npz")
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--out", default="runs/grow")
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()

rank, world = setup()
sched = GrowthSchedule()
(x_tr, y_tr), (x_te, y_te) = load_covtype(args.data, seed=args.seed)
num_classes = int(y_tr.max()) + 1
train_ds = make_dataset(x_tr, y_tr, args.batch, rank, world, training=True, seed=args.seed)
test_ds = make_dataset(x_te, y_te, 1024, rank, world, training=False)
history = History(args.out, enabled=(rank == 0))
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_step(model, opt):
    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            sync(model, opt)
        return loss
    return step


def evaluate(model):
    correct = count = 0
    for x, y in test_ds:
        pred = tf.argmax(model(x, training=False), -1)
        correct += int(tf.reduce_sum(tf.cast(pred == y, tf.int32)))
        count += int(y.shape[0])
    c, n = sum_all([correct, count], name="test_acc")
    return c / n


model = None
for stage, widths, epochs, lr in sched.stages():
    if model is None:
        model = build_mlp(x_tr.shape[1], widths, num_classes)
    else:
        model = widen(model, widths, num_classes, seed=args.seed + stage, noise=sched.noise)
    opt = keras.optimizers.Adam(learning_rate=lr * world)
    step = make_step(model, opt)
    first = True
    for epoch in range(epochs):
        for x, y in train_ds:
            loss = step(x, y, first)
            first = False
        acc = evaluate(model)
        history.log(stage=stage, widths=widths, epoch=epoch, loss=round(float(loss), 4), test_acc=round(acc, 4))
    if rank == 0:
        model.save(os.path.join(args.out, f"stage{stage}.keras"))
