"""
Denoising score matching with an annealed set of noise levels (NCSN-style), keras 3 + horovod.
Mixed precision optional.  python train_score.py --data faces64.npy --mixed
"""
import argparse
import os
import time
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='faces64.npy')
parser.add_argument('--out', default='runs/score_tf')
parser.add_argument('--batch-size', type=int, default=32)
parser.add_argument('--lr', type=float, default=1e-4)
parser.add_argument('--steps', type=int, default=100000)
parser.add_argument('--num-scales', type=int, default=10)
parser.add_argument('--sigma-max', type=float, default=1.0)
parser.add_argument('--sigma-min', type=float, default=0.01)
parser.add_argument('--ema-rate', type=float, default=0.999)
parser.add_argument('--save-every', type=int, default=2000)
parser.add_argument('--mixed', action='store_true')
args = parser.parse_args()

hvd.init()
if args.mixed:
    keras.mixed_precision.set_global_policy('mixed_float16')

sigmas = np.geomspace(args.sigma_max, args.sigma_min, args.num_scales).astype('float32')
SIGMAS = tf.constant(sigmas)

data = np.load(args.data)
ds = tf.data.Dataset.from_tensor_slices(data)
ds = ds.shard(hvd.size(), hvd.rank()).repeat()
ds = ds.shuffle(4096).map(lambda x: tf.cast(x, tf.float32) / 255.0).batch(args.batch_size, drop_remainder=True)
ds = ds.prefetch(4)


def build(nf=64):
    x = keras.Input((64, 64, 3))
    s = keras.Input(())
    h = keras.layers.Conv2D(nf, 3, padding='same', activation='elu')(x)
    h = keras.layers.Conv2D(nf * 2, 3, strides=2, padding='same', activation='elu')(h)
    h = keras.layers.Conv2D(nf * 2, 3, padding='same', activation='elu')(h)
    h = keras.layers.Conv2DTranspose(nf, 4, strides=2, padding='same', activation='elu')(h)
    out = keras.layers.Conv2D(3, 3, padding='same', dtype='float32')(h)
    return keras.Model([x, s], out / s[:, None, None, None])


model = build()
ema_model = build()
optimizer = keras.optimizers.Adam(args.lr * hvd.size())
if args.mixed:
    optimizer = keras.optimizers.LossScaleOptimizer(optimizer)


@tf.function
def train_step(x, first_batch):
    idx = tf.random.uniform([tf.shape(x)[0]], 0, args.num_scales, dtype=tf.int32)
    sig = tf.gather(SIGMAS, idx)
    noise = tf.random.normal(tf.shape(x)) * sig[:, None, None, None]
    with tf.GradientTape() as tape:
        score = model([x + noise, sig], training=True)
        target = -noise / (sig[:, None, None, None] ** 2)
        loss = 0.5 * tf.reduce_mean(tf.reduce_sum(tf.square(score - target), [1, 2, 3]) * sig ** 2)
        scaled = optimizer.scale_loss(loss) if args.mixed else loss
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(scaled, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


ckpt = tf.train.Checkpoint(model=model, ema=ema_model, opt=optimizer, step=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, args.out, max_to_keep=3)

t0 = time.time()
for step, batch in enumerate(ds.take(args.steps)):
    loss = train_step(batch, step == 0)
    if step == 0:
        ema_model.set_weights(model.get_weights())
    else:
        for ew, w in zip(ema_model.trainable_weights, model.trainable_weights):
            ew.assign(args.ema_decay * ew + (1.0 - args.ema_decay) * w)

    if step % 100 == 0:
        l = hvd.allreduce(loss, op=hvd.Average)
        if hvd.rank() == 0:
            print(f'step {step}: dsm loss {float(l):.4f} ({time.time() - t0:.1f}s)', flush=True)
            t0 = time.time()

    if step > 0 and step % args.save_every == 0:
        ckpt.step.assign(step)
        manager.save(checkpoint_number=step)
