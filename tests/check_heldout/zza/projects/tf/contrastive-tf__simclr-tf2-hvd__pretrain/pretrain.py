"""SimCLR pre-training on CIFAR-10 (TF2 / Keras 3, custom loop, Horovod).

Run:  horovodrun -np 4 python pretrain.py --epochs 500 --batch_size 256
"""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from simclr_tf.augment import two_views
from simclr_tf.losses import nt_xent
from simclr_tf.model import build_encoder, build_projector
from simclr_tf.schedule import WarmUpCosine

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=500)
ap.add_argument("--batch_size", type=int, default=256, help="per replica")
ap.add_argument("--base_lr", type=float, default=0.3)
ap.add_argument("--temperature", type=float, default=0.5)
ap.add_argument("--warmup_epochs", type=int, default=10)
ap.add_argument("--model_dir", default="./simclr_ckpt")
FLAGS = ap.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.experimental.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, _), _ = keras.datasets.cifar10.load_data()
per_replica = len(x_train) // hvd.size()
steps_per_epoch = per_replica // FLAGS.batch_size
ds = (tf.data.Dataset.from_tensor_slices(x_train)
      .shard(hvd.size(), hvd.rank())
      .take(per_replica)
      .shuffle(10_000, reshuffle_each_iteration=True)
      .map(two_views, num_parallel_calls=tf.data.AUTOTUNE)
      .batch(FLAGS.batch_size, drop_remainder=True)
      .prefetch(tf.data.AUTOTUNE))

encoder = build_encoder()
projector = build_projector(encoder.output_shape[-1])

global_batch = FLAGS.batch_size * hvd.size()
total_steps = FLAGS.epochs * steps_per_epoch
lr_fn = WarmUpCosine(FLAGS.base_lr * global_batch / 256, FLAGS.warmup_epochs * steps_per_epoch, total_steps)
optimizer = keras.optimizers.SGD(learning_rate=lr_fn, momentum=0.9)

ckpt = tf.train.Checkpoint(encoder=encoder, projector=projector, optimizer=optimizer, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, FLAGS.model_dir, max_to_keep=3) if hvd.rank() == 0 else None


@tf.function
def train_step(v1, v2, first_batch):
    with tf.GradientTape() as tape:
        z1 = projector(encoder(v1, training=True), training=True)
        z2 = projector(encoder(v2, training=True), training=True)
        loss = nt_xent(z1, z2, FLAGS.temperature)
    tape = hvd.DistributedGradientTape(tape)
    variables = encoder.trainable_variables + projector.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    # broadcast after the first step so that the optimizer slots exist as well
    if first_batch:
        hvd.broadcast_variables(encoder.variables + projector.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


first = True
for epoch in range(FLAGS.epochs):
    t0, total, n = time.time(), 0.0, 0
    for v1, v2 in ds:
        loss = train_step(v1, v2, tf.constant(first))
        first = False
        total += float(loss)
        n += 1
    epoch_loss = hvd.allreduce(tf.constant(total / max(n, 1)), op=hvd.Average).numpy()
    ckpt.epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{FLAGS.epochs}  loss {epoch_loss:.4f}  lr {float(lr_fn(optimizer.iterations)):.4f}  "
              f"{time.time() - t0:.0f}s", flush=True)
        if (epoch + 1) % 10 == 0 or epoch + 1 == FLAGS.epochs:
            manager.save(checkpoint_number=epoch + 1)
            encoder.save_weights(os.path.join(FLAGS.model_dir, "encoder.weights.h5"))
