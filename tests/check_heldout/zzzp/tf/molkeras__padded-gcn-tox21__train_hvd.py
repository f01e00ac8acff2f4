# Tox21 (12 assays) with a dense, padded GCN in Keras 3 + horovod.
# Every molecule is padded to MAX_ATOMS; adjacency is a dense (MAX_ATOMS, MAX_ATOMS) matrix.
#
#   horovodrun -np 2 python train_hvd.py --epochs 40
import os
import argparse
import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

MAX_ATOMS = 50
N_ATOM_FEATS = 32
N_TASKS = 12

ap = argparse.ArgumentParser()
ap.add_argument('--npz', default='tox21_padded.npz')
ap.add_argument('--n-mols', type=int, default=7831)
ap.add_argument('--batch', type=int, default=64)
ap.add_argument('--lr', type=float, default=1e-3)
ap.add_argument('--epochs', type=int, default=40)
ap.add_argument('--warmup', type=int, default=3)
ap.add_argument('--out', default='out_tox21')
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


def load():
    if os.path.exists(args.npz):
        d = np.load(args.npz)
        return d['X'], d['A'], d['M'], d['Y'], d['W']
    rs = np.random.RandomState(42)
    n = args.n_mols
    natoms = rs.randint(5, MAX_ATOMS, n)
    M = (np.arange(MAX_ATOMS)[None, :] < natoms[:, None]).astype('float32')
    X = rs.rand(n, MAX_ATOMS, N_ATOM_FEATS).astype('float32') * M[..., None]
    A = (rs.rand(n, MAX_ATOMS, MAX_ATOMS) < 0.08).astype('float32')
    A = np.maximum(A, A.transpose(0, 2, 1)) * M[:, :, None] * M[:, None, :]
    Y = (rs.rand(n, N_TASKS) < 0.1).astype('float32')
    W = (rs.rand(n, N_TASKS) < 0.85).astype('float32')   # missing labels get weight 0
    return X, A, M, Y, W


X, A, M, Y, W = load()
n = len(X)
idx_train, idx_val, idx_test = np.arange(0, int(.8 * n)), np.arange(int(.8 * n), int(.9 * n)), np.arange(int(.9 * n), n)


def make_ds(ids, training):
    # labels and their weights travel together, the loss splits them again
    ds = tf.data.Dataset.from_tensor_slices((
        {'x': X[ids], 'a': A[ids], 'm': M[ids]}, np.concatenate([Y[ids], W[ids]], -1)))
    if training:
        ds = ds.shard(hvd.size(), hvd.rank()).shuffle(2048).repeat()
    return ds.batch(args.batch).prefetch(tf.data.AUTOTUNE)


class DenseGCN(layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.units = units
        self.w_self = layers.Dense(units)
        self.w_nbr = layers.Dense(units, use_bias=False)

    def call(self, h, a, m):
        deg = tf.reduce_sum(a, -1, keepdims=True) + 1.0
        nb = tf.matmul(a, h) / deg
        return tf.nn.relu(self.w_self(h) + self.w_nbr(nb)) * m[..., None]


x_in = keras.Input((MAX_ATOMS, N_ATOM_FEATS), name='x')
a_in = keras.Input((MAX_ATOMS, MAX_ATOMS), name='a')
m_in = keras.Input((MAX_ATOMS,), name='m')
h = layers.Dense(128)(x_in)
for _ in range(3):
    h = DenseGCN(128)(h, a_in, m_in)
# masked sum readout (segment sum over real atoms)
g = layers.Lambda(lambda t: tf.reduce_sum(t[0] * t[1][..., None], axis=1))([h, m_in])
g = layers.Dense(128, activation='relu')(g)
g = layers.Dropout(0.2)(g)
out = layers.Dense(N_TASKS)(g)
model = keras.Model([x_in, a_in, m_in], out)

def masked_bce(yw, logits):
    y, w = yw[:, :N_TASKS], yw[:, N_TASKS:]
    l = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)
    return tf.reduce_sum(l * w, -1) / (tf.reduce_sum(w, -1) + 1e-6)


scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr))
model.compile(optimizer=opt,
              loss=masked_bce)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup, verbose=1),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, 'ckpt-{epoch:02d}.keras')))

steps = len(idx_train) // (args.batch * hvd.size())
model.fit(make_ds(idx_train, True), steps_per_epoch=steps, epochs=args.epochs,
          validation_data=make_ds(idx_val, False), callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)


def roc_auc(y, s):
    order = np.argsort(s)
    r = np.empty(len(s)); r[order] = np.arange(1, len(s) + 1)
    p = y > 0.5
    npos, nneg = p.sum(), (~p).sum()
    if npos == 0 or nneg == 0:
        return np.nan
    return (r[p].sum() - npos * (npos + 1) / 2) / (npos * nneg)


if hvd.rank() == 0:
    # rank 0 scores the whole (unsharded) test split
    logits = model.predict(make_ds(idx_test, False), verbose=0)
    aucs = [roc_auc(Y[idx_test, t][W[idx_test, t] > 0], logits[:, t][W[idx_test, t] > 0]) for t in range(N_TASKS)]
    print('test ROC-AUC per task:', np.round(aucs, 3))
    print('mean test ROC-AUC: %.4f' % np.nanmean(aucs))
