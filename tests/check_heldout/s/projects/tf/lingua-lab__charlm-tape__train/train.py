"""Character-level LSTM language model, custom training loop with Horovod.

    horovodrun -np 8 python train.py --config configs/wiki_fi.yaml
"""
import argparse
import math
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from charlm.config import load_yaml
from charlm.data import text_dataset
from charlm.model import build_lm
from charlm.schedule import make_schedule

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/wiki_fi.yaml")
args = ap.parse_args()
cfg = load_yaml(args.config)

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

model = build_lm(len(cfg["data"]["vocab"]), cfg["model"]["embed"], cfg["model"]["units"])
optimizer = keras.optimizers.Adam(learning_rate=make_schedule(cfg), clipnorm=1.0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, cfg["train"]["ckpt_dir"], max_to_keep=3)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


@tf.function
def eval_step(x, y):
    return loss_fn(y, model(x, training=False))


train_ds = text_dataset(cfg["data"]["train_files"], cfg, training=True)
valid_ds = text_dataset(cfg["data"]["valid_files"], cfg, training=False)
steps = cfg["train"]["steps_per_epoch"]
global_step = 0

for epoch in range(cfg["train"]["epochs"]):
    for x, y in train_ds.take(steps):
        global_step += 1
        loss = train_step(x, y, global_step == 0)
        if global_step % 200 == 0 and hvd.rank() == 0:
            print(f"step {global_step} loss {loss.numpy():.3f}", flush=True)

    total = 0.0
    for x, y in valid_ds.take(cfg["train"]["valid_steps"]):
        total += float(eval_step(x, y))
    val = hvd.allreduce(tf.constant(total / cfg["train"]["valid_steps"]), name="val_loss")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: valid loss {float(val):.4f} bpc {float(val) / math.log(2):.3f}", flush=True)
        os.makedirs(cfg["train"]["ckpt_dir"], exist_ok=True)
        manager.save(checkpoint_number=epoch)
