# DeepPot-SE style model (smooth edition descriptor + fitting net) in TF2/Keras 3.
# Trains on one MD17-like system: R (nframes, natoms, 3), z, E, F.
# mpirun -np 4 python train.py -i aspirin.npz
import os
import sys
import time
import argparse

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

parser = argparse.ArgumentParser()
parser.add_argument('-i', '--input', default='aspirin.npz')
parser.add_argument('--rcut', type=float, default=6.0)
parser.add_argument('--rcut-smth', type=float, default=0.5)
parser.add_argument('--batch', type=int, default=4)
parser.add_argument('--steps', type=int, default=200000)
parser.add_argument('--start-lr', type=float, default=1e-3)
parser.add_argument('--stop-lr', type=float, default=3.5e-8)
parser.add_argument('--start-pref-e', type=float, default=0.02)
parser.add_argument('--limit-pref-e', type=float, default=1.0)
parser.add_argument('--start-pref-f', type=float, default=1000.)
parser.add_argument('--limit-pref-f', type=float, default=1.0)
parser.add_argument('--disp-freq', type=int, default=1000)
parser.add_argument('--save-freq', type=int, default=10000)
parser.add_argument('--save-dir', default='model_ckpt')
parser.add_argument('--n-test', type=int, default=200)
args = parser.parse_args()

data = np.load(args.input)
coords = data['R'].astype(np.float32)
energies = data['E'].reshape(-1).astype(np.float32)
forces = data['F'].astype(np.float32)
types = data['z']
nframes, natoms = coords.shape[:2]

# same shuffled split on all workers, then every worker takes one contiguous chunk
perm = np.random.RandomState(1).permutation(nframes)
test_idx, train_idx = perm[:args.n_test], perm[args.n_test:]
my_train = np.array_split(train_idx, hvd.size())[hvd.rank()]
test_chunks = np.array_split(test_idx, hvd.size())
n_test_local = min(len(c) for c in test_chunks)
my_test = test_chunks[hvd.rank()][:n_test_local]
e_shift = float(energies[train_idx].mean() / natoms)

rcut, rsmth = args.rcut, args.rcut_smth
species = np.unique(types)
type_idx = np.searchsorted(species, types).astype(np.int32)


def smooth_switch(r):
    u = (r - rsmth) / (rcut - rsmth)
    sw = u ** 3 * (-6 * u ** 2 + 15 * u - 10) + 1
    sw = tf.where(r < rsmth, tf.ones_like(r), sw)
    return tf.where(r < rcut, sw / r, tf.zeros_like(r))


class DeepPotSE(keras.Model):
    def __init__(self, n_types, m1=25, m2=8, fit=(120, 120, 120)):
        super().__init__()
        self.m2 = m2
        self.embed = [keras.Sequential([keras.layers.Dense(w, activation='tanh') for w in (16, 32, m1)])
                      for _ in range(n_types)]
        self.fitting = [keras.Sequential([keras.layers.Dense(w, activation='tanh') for w in fit]
                                         + [keras.layers.Dense(1)]) for _ in range(n_types)]
        self.tidx = tf.constant(type_idx)

    def call(self, R):
        # R: (B, N, 3) ; full N x N environment, masked by the cutoff
        B, N = tf.shape(R)[0], tf.shape(R)[1]
        rij = R[:, None, :, :] - R[:, :, None, :]
        eye = tf.eye(N, batch_shape=[B])
        r = tf.sqrt(tf.reduce_sum(rij ** 2, -1) + eye)
        s = smooth_switch(r) * (1.0 - eye)
        env = tf.concat([s[..., None], (s / r)[..., None] * rij], -1)       # (B, N, N, 4)
        g = 0.0
        for t, net in enumerate(self.embed):
            mask = tf.cast(tf.equal(self.tidx, t), tf.float32)[None, None, :, None]
            g = g + net(s[..., None]) * mask                                 # (B, N, N, M1)
        A = tf.einsum('bijk,bijm->bikm', env, g) / tf.cast(N, tf.float32)    # (B, N, 4, M1)
        D = tf.einsum('bikm,bikn->bimn', A, A[..., :self.m2])
        D = tf.reshape(D, [B, N, -1])
        e_atom = 0.0
        for t, net in enumerate(self.fitting):
            mask = tf.cast(tf.equal(self.tidx, t), tf.float32)[None, :, None]
            e_atom = e_atom + net(D) * mask
        return tf.reduce_sum(e_atom[..., 0], -1) + e_shift * tf.cast(N, tf.float32)


model = DeepPotSE(len(species))
model(tf.constant(coords[:1]))   # build weights

# exponential decay, deepmd style, starting lr scaled with the number of workers
decay_rate = (args.stop_lr / args.start_lr) ** (1.0 / max(1, args.steps // 5000))
lr_sched = keras.optimizers.schedules.ExponentialDecay(args.start_lr * hvd.size(), 5000, decay_rate, staircase=True)
opt = keras.optimizers.Adam(lr_sched)

hvd.broadcast_variables(model.variables, root_rank=0)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, args.save_dir, max_to_keep=5)


def prefactors(step):
    frac = lr_sched(step) / (args.start_lr * hvd.size())
    pe = args.limit_pref_e + (args.start_pref_e - args.limit_pref_e) * frac
    pf = args.limit_pref_f + (args.start_pref_f - args.limit_pref_f) * frac
    return pe, pf


@tf.function
def step_fn(R, E, F, step):
    pe, pf = prefactors(step)
    with tf.GradientTape() as tape:
        with tf.GradientTape() as gtape:
            gtape.watch(R)
            Ep = model(R)
        Fp = -gtape.gradient(Ep, R)
        l_e = tf.reduce_mean(tf.square(Ep - E)) / natoms ** 2
        l_f = tf.reduce_mean(tf.square(Fp - F))
        loss = pe * l_e + pf * l_f
    grads = tape.gradient(loss, model.trainable_variables)
    grads = [hvd.allreduce(g, op=hvd.Average, name='grad_%d' % i) for i, g in enumerate(grads)]
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss, tf.sqrt(l_e) , tf.sqrt(l_f)


@tf.function
def test_fn(R, E, F):
    with tf.GradientTape() as g:
        g.watch(R)
        Ep = model(R)
    Fp = -g.gradient(Ep, R)
    return tf.reduce_mean(tf.abs(Ep - E)) / natoms, tf.reduce_mean(tf.abs(Fp - F))


rng = np.random.default_rng(hvd.rank())
t0 = time.time()
for step in range(int(ckpt.step), args.steps):
    b = rng.choice(my_train, args.batch, replace=False)
    loss, rmse_e, rmse_f = step_fn(tf.constant(coords[b]), tf.constant(energies[b]), tf.constant(forces[b]),
                                   tf.constant(step, tf.int64))
    ckpt.step.assign_add(1)

    if step % args.disp_freq == 0:
        e_mae, f_mae = test_fn(tf.constant(coords[my_test]), tf.constant(energies[my_test]),
                               tf.constant(forces[my_test]))
        e_mae = hvd.allreduce(e_mae, op=hvd.Average, name='e_mae')
        f_mae = hvd.allreduce(f_mae, op=hvd.Average, name='f_mae')
        if hvd.rank() == 0:
            print('step %7d  loss %.3e  rmse_e %.3e  rmse_f %.3e | test mae_e/atom %.4e mae_f %.4e  lr %.2e  %.1fs'
                  % (step, loss, rmse_e, rmse_f, e_mae, f_mae, lr_sched(step), time.time() - t0))
            sys.stdout.flush()
            t0 = time.time()
    if step > 0 and step % args.save_freq == 0 and hvd.rank() == 0:
        manager.save(checkpoint_number=step)

if hvd.rank() == 0:
    manager.save(checkpoint_number=args.steps)
    model.save_weights(os.path.join(args.save_dir, 'frozen.weights.h5'))
