"""SimCLR pre-training, TF2 / Keras 3 port of our PyTorch code (GradientTape + Horovod).

The global batch (512) is fixed by the paper recipe and split over the workers; the lr follows
the global batch, so it does not change with the number of workers.

    horovodrun -np 8 python pretrain_tf.py --data /data/stl10_unlabeled.npy
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from simclr_tf.data import make_two_view_dataset
from simclr_tf.losses import nt_xent
from simclr_tf.model import build_simclr

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--global-batch", type=int, default=512)
ap.add_argument("--temperature", type=float, default=0.5)
ap.add_argument("--ckpt-dir", default="./ckpt_simclr_tf")
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

per_worker = args.global_batch // hvd.size()
dataset, steps_per_epoch = make_two_view_dataset(
    args.data, per_worker, args.global_batch, num_shards=hvd.size(), index=hvd.rank())

model = build_simclr(input_shape=(96, 96, 3))
lr = 0.3 * args.global_batch / 256
schedule = keras.optimizers.schedules.CosineDecay(lr, decay_steps=args.epochs * steps_per_epoch)
opt = keras.optimizers.SGD(learning_rate=schedule, momentum=0.9)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(v1, v2, first_batch):
    with tf.GradientTape() as tape:
        z1 = model(v1, training=True)
        z2 = model(v2, training=True)
        loss = nt_xent(z1, z2, args.temperature)
    tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # broadcast after the first step so that the optimizer slots exist
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


step = 0
for epoch in range(args.epochs):
    epoch_loss = tf.keras.metrics.Mean()
    for v1, v2 in dataset.take(steps_per_epoch):
        loss = train_step(v1, v2, step == 0)
        epoch_loss.update_state(loss)
        step += 1
    # equal number of equal batches on every worker -> mean of the worker means is the global mean
    mean_loss = hvd.allreduce(epoch_loss.result(), name="epoch_loss")
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{args.epochs} nt-xent {float(mean_loss):.4f}", flush=True)
        manager.save(checkpoint_number=epoch + 1)

if hvd.rank() == 0:
    model.get_layer("encoder").save(os.path.join(args.ckpt_dir, "encoder.keras"))
