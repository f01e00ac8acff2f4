"""Train an MLP surrogate of the 2-D heat equation solver (parameters -> temperature field).

Gradient accumulation over `opt.accum` micro-batches, one allreduce per optimizer step, EMA
weights for evaluation.  Example:  mpirun -np 8 python train.py --config cfg/heat2d_large.json
"""
import argparse
import time

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

from surrogate import config as config_lib
from surrogate.data import load_splits, train_stream
from surrogate.env import init_horovod_and_devices
from surrogate.model import make_mlp
from surrogate.train_state import EMA, GradAccumulator

p = argparse.ArgumentParser()
p.add_argument("--config")
p.add_argument("--epochs", type=int)
args = p.parse_args()

rank, world = init_horovod_and_devices(log_device=True)
cfg = config_lib.load(args.config, **({"run__epochs": args.epochs} if args.epochs else {}))

(xtr, ytr), (xva, yva) = load_splits(cfg.data.path, cfg.data.val_fraction)
train_ds, n_micro = train_stream(xtr, ytr, cfg.data.batch, rank, world, cfg.opt.accum)
val_ds = tf.data.Dataset.from_tensor_slices((xva, yva)).batch(1024)   # full val set on every rank

model = make_mlp(xtr.shape[1], ytr.shape[1], cfg.net.width, cfg.net.depth, cfg.net.activation)
# effective batch = batch * accum * world; lr given for one worker
opt = keras.optimizers.Adam(learning_rate=cfg.opt.lr * world, clipnorm=cfg.opt.clipnorm)
opt.build(model.trainable_variables)
acc = GradAccumulator(model.trainable_variables)
ema = EMA(model.trainable_variables, cfg.opt.ema)
epoch_var = tf.Variable(0, dtype=tf.int64, trainable=False)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, ema=ema.shadow, epoch=epoch_var)
manager = tf.train.CheckpointManager(ckpt, cfg.run.ckpt_dir, max_to_keep=3)
if rank == 0 and manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
    print("restored", manager.latest_checkpoint, "epoch", int(epoch_var.numpy()), flush=True)
# one broadcast of everything that has to match: weights, Adam slots/iterations, EMA, epoch
hvd.broadcast_variables(model.variables + opt.variables + ema.shadow + [epoch_var], root_rank=0)

mse = keras.losses.MeanSquaredError()


@tf.function
def micro_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))
    acc.add(tape.gradient(loss, model.trainable_variables))
    return loss


@tf.function
def apply_step():
    grads = hvd.grouped_allreduce(acc.mean(cfg.opt.accum), op=hvd.Average)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    acc.reset()
    ema.update()


def evaluate_ema():
    backup = [v.numpy() for v in model.trainable_variables]
    ema.copy_to(model.trainable_variables)
    err, n = 0.0, 0
    for x, y in val_ds:
        pred = model(x, training=False)
        err += float(tf.reduce_sum(tf.reduce_mean(tf.square(pred - y), axis=1)))
        n += int(x.shape[0])
    for v, b in zip(model.trainable_variables, backup):
        v.assign(b)
    return err / max(n, 1)


for epoch in range(int(epoch_var.numpy()), cfg.run.epochs):
    t0, losses = time.time(), []
    for i, (x, y) in enumerate(train_ds):
        losses.append(float(micro_step(x, y)))
        if (i + 1) % cfg.opt.accum == 0:
            apply_step()
    epoch_var.assign(epoch + 1)
    if (epoch + 1) % cfg.run.eval_every == 0:
        val_mse = evaluate_ema()
        if rank == 0:
            print(f"epoch {epoch + 1}: train(rank0) {np.mean(losses):.5f}  val_mse(ema) {val_mse:.5f}"
                  f"  {time.time() - t0:.1f}s", flush=True)
    if rank == 0:
        manager.save(checkpoint_number=epoch + 1)
