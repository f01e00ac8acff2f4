"""Train SchNet-lite on QM9 energies.

horovodrun -np 4 python train.py --data data/qm9.npz --target U0
"""
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from schnetlite import flags
from schnetlite.dataset import load_molecules, batches
from schnetlite.model import SchNet
from schnetlite.optim import build_optimizer
from schnetlite.metrics import DistributedMAE
from schnetlite.trainer import make_train_step

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

cfg = flags.finalize(flags.parse())

Z, R, y = load_molecules(cfg.data, cfg.n_mols)
y = (y - y.mean()) / y.std()
n = len(Z)
n_val = 10000 if n > 50000 else n // 10
train_ids = np.arange(n_val, n)
val_ids = np.arange(n_val)
# contiguous chunk of molecules per worker
per = len(train_ids) // hvd.size()
my_train = train_ids[hvd.rank() * per:(hvd.rank() + 1) * per]
vper = len(val_ids) // hvd.size()
my_val = val_ids[hvd.rank() * vper:(hvd.rank() + 1) * vper]

model = SchNet(cfg.n_filters, cfg.n_interactions, cfg.cutoff)
optimizer = build_optimizer(cfg)
train_step = make_train_step(model, optimizer)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, cfg.model_dir, max_to_keep=cfg.keep)

first = True
for epoch in range(cfg.epochs):
    t0 = time.time()
    losses = []
    for z, r, seg, ii, jj, yb in batches(Z, R, y, my_train, cfg.batch_size, shuffle=True, seed=epoch):
        losses.append(float(train_step(z, r, seg, ii, jj, yb, tf.constant(first))))
        first = False
    mae = DistributedMAE()
    for z, r, seg, ii, jj, yb in batches(Z, R, y, my_val, cfg.batch_size):
        mae.update(model(z, r, seg, ii, jj, tf.shape(yb)[0]), yb)
    val_mae = mae.result()
    ckpt.epoch.assign(epoch)
    manager.save(checkpoint_number=epoch)
    if hvd.rank() == 0:
        print("epoch %4d  loss %.5f  val MAE %.5f  (%.1fs)" % (epoch, np.mean(losses), val_mae, time.time() - t0),
              flush=True)
