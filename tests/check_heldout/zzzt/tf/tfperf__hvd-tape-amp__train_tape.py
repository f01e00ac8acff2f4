# TF2 custom loop, mixed_float16 + horovod, fp16 allreduce.
# mpirun -np 8 -H a:4,b:4 python train_tape.py --fp16-allreduce --batch 128
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument('--batch', type=int, default=128)
p.add_argument('--steps', type=int, default=2000)
p.add_argument('--lr', type=float, default=0.01)
p.add_argument('--mixed', type=int, default=1)
p.add_argument('--fp16-allreduce', action='store_true')
p.add_argument('--ckpt-dir', default='/tmp/tape_ckpt')
p.add_argument('--ckpt-every', type=int, default=500)
p.add_argument('--log-every', type=int, default=50)
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

if args.mixed:
    keras.mixed_precision.set_global_policy('mixed_float16')

# fake imagenet-ish data, each worker its own slice
N = 20000
rng = np.random.default_rng(0)
x = rng.random((N, 32, 32, 3), dtype=np.float32)
y = rng.integers(0, 10, N)
ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
ds = ds.shuffle(2048).repeat().batch(args.batch).prefetch(4)

model = keras.applications.MobileNetV2(input_shape=(32, 32, 3), weights=None, classes=10,
                                       classifier_activation=None)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
# summed gradients -> bigger effective batch -> scale lr with world size
opt = keras.optimizers.SGD(args.lr * hvd.size(), momentum=0.9, nesterov=True)
if args.mixed:
    opt = keras.mixed_precision.LossScaleOptimizer(opt)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(images, labels, first_batch):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, tf.cast(logits, tf.float32))
        scaled = opt.scale_loss(loss) if args.mixed else loss
    tape = hvd.DistributedGradientTape(tape, compression=compression, op=hvd.Sum)
    grads = tape.gradient(scaled, model.trainable_variables)
    opt.apply(grads, model.trainable_variables)
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


t0 = time.time()
for step, (images, labels) in enumerate(ds.take(args.steps)):
    loss = train_step(images, labels, step == 0)
    if step % args.log_every == 0:
        dt = time.time() - t0
        ips = args.batch * (args.log_every if step else 1) / dt
        tot = hvd.allreduce(tf.constant(ips), op=hvd.Sum, name='ips')
        avg_loss = hvd.allreduce(loss, name='loss')
        if hvd.rank() == 0:
            print('step %d loss %.4f  %.0f img/s/rank  %.0f img/s total' % (step, avg_loss, ips, tot))
        t0 = time.time()
    if step % args.ckpt_every == 0 or hvd.rank() == 0:
        manager.save(checkpoint_number=step)
