#!/usr/bin/env python
# SchNet on energies + forces, TF2 / Keras 3, horovod GradientTape loop.
#   horovodrun -np 4 -H localhost:4 python train.py --train data/ani_train.npz --valid data/ani_valid.npz
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from skhvd.flags import parse_flags
from skhvd.hvd_utils import init_horovod, rank0_print, global_mean
from skhvd.data import packed_dataset
from skhvd.model import SchNet
from skhvd.checkpoints import save_weights

FLAGS = parse_flags()
rank, size = init_horovod()
keras.utils.set_random_seed(FLAGS.seed)

train_ds = packed_dataset(FLAGS.train, FLAGS.batch, rank, size, shuffle=True, seed=FLAGS.seed)
valid_ds = packed_dataset(FLAGS.valid, FLAGS.batch, rank, size, shuffle=False)

model = SchNet(features=FLAGS.features, interactions=FLAGS.interactions, cutoff=FLAGS.cutoff)
lr = keras.optimizers.schedules.ExponentialDecay(FLAGS.lr * size, decay_steps=10000, decay_rate=0.96)
opt = keras.optimizers.Adam(learning_rate=lr, use_ema=FLAGS.ema > 0, ema_momentum=FLAGS.ema or 0.99)

spec = (tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, 3], tf.float32),
        tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.float32),
        tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.float32))


def energy_forces(z, pos, seg, n_mol):
    with tf.GradientTape() as inner:
        inner.watch(pos)
        energy = model(z, pos, seg, n_mol)
    forces = -inner.gradient(energy, pos)
    return energy, forces


@tf.function(input_signature=[*spec, tf.TensorSpec([], tf.bool)], reduce_retracing=True)
def train_step(z, pos, seg, e_ref, f_ref, n_at, first_batch):
    with tf.GradientTape() as tape:
        e, f = energy_forces(z, pos, seg, tf.shape(e_ref)[0])
        loss_e = tf.reduce_mean(tf.square((e - e_ref) / n_at))
        loss_f = tf.reduce_mean(tf.square(f - f_ref))
        loss = FLAGS.rho_e * loss_e + FLAGS.rho_f * loss_f
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # sync initial state from rank 0 once the variables exist
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function(input_signature=spec, reduce_retracing=True)
def eval_step(z, pos, seg, e_ref, f_ref, n_at):
    e, f = energy_forces(z, pos, seg, tf.shape(e_ref)[0])
    return (tf.reduce_sum(tf.abs(e - e_ref) / n_at), tf.reduce_sum(tf.abs(f - f_ref)),
            tf.cast(tf.shape(e_ref)[0], tf.float32), tf.cast(tf.size(f_ref), tf.float32))


first = True
best = float("inf")
for epoch in range(FLAGS.epochs):
    t0 = time.time()
    for batch in train_ds:
        loss = train_step(*batch, tf.constant(first))
        first = False

    tot = [0.0, 0.0, 0.0, 0.0]
    for batch in valid_ds:
        tot = [a + float(b) for a, b in zip(tot, eval_step(*batch))]
    e_mae = global_mean(tot[0], tot[2], "e_mae")
    f_mae = global_mean(tot[1], tot[3], "f_mae")
    rank0_print(f"epoch {epoch:4d} loss {float(loss):.4f} E/atom MAE {e_mae:.4f} F MAE {f_mae:.4f} "
                f"[{time.time() - t0:.1f}s]")
    if f_mae < best:
        best = f_mae
        save_weights(model, FLAGS.ckpt_dir, "best")

if FLAGS.ema > 0:
    opt.finalize_variable_values(model.trainable_variables)
save_weights(model, FLAGS.ckpt_dir, "final_ema")
