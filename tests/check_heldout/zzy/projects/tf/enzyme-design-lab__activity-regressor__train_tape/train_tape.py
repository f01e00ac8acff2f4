"""Predict log(kcat/KM) of PafA variants from sequence - GradientTape loop, Horovod.

    mpirun -np 8 python train_tape.py            # settings in enzreg/settings.py
"""
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from enzreg.download import cached_download
from enzreg.encode import one_hot, random_split, read_variants
from enzreg.model import variant_cnn
from enzreg.settings import Settings
from enzreg.stats import spearmanr


def main(cfg=Settings()):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    seqs, y = read_variants(cached_download(cfg.dms_url, cfg.cache_root))
    x = one_hot(seqs, cfg.wild_type_len)
    tr, va = random_split(len(y), cfg.val_fraction, cfg.split_seed)     # same split on every worker

    per_worker = cfg.global_batch // hvd.size()
    tr = tr[: len(tr) // hvd.size() * hvd.size()]            # equal shards -> equal step counts
    train_ds = (tf.data.Dataset.from_tensor_slices((x[tr], y[tr]))
                .shard(hvd.size(), hvd.rank())
                .shuffle(20000, seed=hvd.rank())
                .batch(per_worker, drop_remainder=True))
    va_mine = va[hvd.rank()::hvd.size()]
    val_ds = tf.data.Dataset.from_tensor_slices((x[va_mine], y[va_mine])).batch(512)

    model = variant_cnn(cfg.wild_type_len)
    opt = keras.optimizers.Adam(cfg.lr)          # global batch is fixed, so the lr is too
    huber = keras.losses.Huber()

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = huber(yb, tf.squeeze(model(xb, training=True), -1))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    manager = None
    if hvd.rank() == 0:
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, opt=opt), cfg.ckpt_dir, 2)

    synced = False
    for epoch in range(cfg.epochs):
        for xb, yb in train_ds:
            loss = step(xb, yb)
            if not synced:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
                synced = True

        pred = np.concatenate([model(xb, training=False).numpy()[:, 0] for xb, _ in val_ds] or [np.zeros(0)])
        pred_all = hvd.allgather(tf.constant(pred, tf.float32), name="val_pred").numpy()
        true_all = hvd.allgather(tf.constant(y[va_mine]), name="val_true").numpy()
        rho = spearmanr(pred_all, true_all)
        if manager is not None:
            manager.save()
            print(f"[{epoch:02d}] loss={float(loss):.4f} val_spearman={rho:.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
