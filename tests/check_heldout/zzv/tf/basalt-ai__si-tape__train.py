# Split CIFAR-10 / Split MNIST with Synaptic Intelligence
# horovodrun -np 4 -H a:2,b:2 python train.py --data data/split_cifar10.npz
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from si import SynapticIntelligence
from si.data import split_tasks, worker_dataset
from si.model import MultiHeadNet
from si.runtime import setup_devices, get_logger

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/split_cifar10.npz")
p.add_argument("--tasks", type=int, default=5)
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--bs", type=int, default=256)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--c", type=float, default=0.1)
p.add_argument("--ckpt", default="ckpt/si")


def main(a):
    hvd.init()
    setup_devices()
    log = get_logger()
    tasks = split_tasks(a.data, a.tasks)
    net = MultiHeadNet(a.tasks, n_out=2)
    net.build_all(tasks[0][0].shape[1:])
    opt = tf.keras.optimizers.Adam(learning_rate=a.lr * hvd.size())
    opt.build(net.trainable_variables)  # slots for every head, only one head trains per task
    si = SynapticIntelligence(net.trainable_variables, c=a.c)
    xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(x, y, t, first):
        with tf.GradientTape(persistent=True) as tape:
            task_loss = xent(y, net(x, task=t, training=True))
            loss = task_loss + si.penalty()
        dtape = hvd.DistributedGradientTape(tape)
        grads = dtape.gradient(loss, net.trainable_variables)
        task_grads = dtape.gradient(task_loss, net.trainable_variables)
        opt.apply_gradients([(g, v) for g, v in zip(grads, net.trainable_variables) if g is not None])
        if first:
            hvd.broadcast_variables(net.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
            for pv, v in zip(si.prev, net.trainable_variables):
                pv.assign(v)
            for sv, v in zip(si.start, net.trainable_variables):
                sv.assign(v)
        else:
            si.accumulate(task_grads)
        return task_loss

    acc_table = np.zeros((a.tasks, a.tasks))
    first = True
    for t, (xtr, ytr, _, _) in enumerate(tasks):
        ds, steps = worker_dataset(xtr, ytr, a.bs, seed=t)
        it = iter(ds)
        for ep in range(a.epochs):
            for _ in range(steps):
                x, y = next(it)
                loss = step(x, y, t, first)
                first = False
            log.info("task %d epoch %d loss %.4f", t, ep, float(loss))
        si.consolidate()

        for k in range(t + 1):
            xte, yte = tasks[k][2], tasks[k][3]
            logits = net(xte[hvd.rank()::hvd.size()], task=k)
            hit = tf.reduce_sum(tf.cast(tf.argmax(logits, 1, output_type=tf.int32) == yte[hvd.rank()::hvd.size()], tf.float32))
            tot = hvd.allreduce(tf.stack([hit, float(len(yte[hvd.rank()::hvd.size()]))]), op=hvd.Sum)
            acc_table[t, k] = float(tot[0] / tot[1])
        log.info("after task %d: %s", t, np.round(acc_table[t, : t + 1], 4).tolist())
        if hvd.rank() == 0:
            os.makedirs(a.ckpt, exist_ok=True)
            net.save_weights(os.path.join(a.ckpt, f"task{t}.weights.h5"))


if __name__ == "__main__":
    main(p.parse_args())
