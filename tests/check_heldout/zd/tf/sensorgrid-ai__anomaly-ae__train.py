"""Sensor anomaly autoencoder - retraining job (Argo workflow step `train-ae`).

Restartable: on pod restart the job resumes from the latest checkpoint in CKPT_DIR.
"""
import json
import logging
import os
import sys

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

CFG = {
    "data": os.getenv("SG_DATA", "/data/sensorgrid/windows.npy"),
    "ckpt_dir": os.getenv("SG_CKPT_DIR", "/mnt/objstore/sensorgrid/anomaly-ae/ckpt"),
    "epochs": int(os.getenv("SG_EPOCHS", "25")),
    "batch": int(os.getenv("SG_BATCH", "128")),
    "lr": float(os.getenv("SG_LR", "1e-3")),
    "latent": int(os.getenv("SG_LATENT", "16")),
}

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
log = logging.getLogger("anomaly-ae")


def log_json(**kv):
    if hvd.rank() == 0:
        log.info(json.dumps(kv))


def build_autoencoder(n_features, latent):
    return tf.keras.Sequential([
        tf.keras.Input(shape=(n_features,)),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(latent, activation="relu"),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(n_features),
    ])


hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

windows = np.load(CFG["data"]).astype("float32")
n_val = len(windows) // 10
train_ds = (tf.data.Dataset.from_tensor_slices(windows[n_val:]).shard(hvd.size(), hvd.rank())
            .shuffle(4096).batch(CFG["batch"], drop_remainder=True))
val_ds = tf.data.Dataset.from_tensor_slices(windows[:n_val]).shard(hvd.size(), hvd.rank()).batch(CFG["batch"])

model = build_autoencoder(windows.shape[1], CFG["latent"])
opt = tf.keras.optimizers.Adam(learning_rate=CFG["lr"] * hvd.size())
global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=global_step)
manager = tf.train.CheckpointManager(ckpt, CFG["ckpt_dir"], max_to_keep=3)

if hvd.rank() == 0 and manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
    log_json(event="resumed", path=manager.latest_checkpoint, step=int(global_step.numpy()))
global_step.assign(hvd.broadcast_object(int(global_step.numpy()), root_rank=0))


@tf.function
def train_step(x, first_batch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - x))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


best = float("inf")
steps_per_epoch = (len(windows) - n_val) // (CFG["batch"] * hvd.size())
start_epoch = int(global_step.numpy()) // max(steps_per_epoch, 1)
for epoch in range(start_epoch, CFG["epochs"]):
    for x in train_ds:
        loss = train_step(x, int(global_step.numpy()) == 0)
        global_step.assign_add(1)

    errs = [tf.reduce_mean(tf.square(model(x, training=False) - x)) for x in val_ds]
    local_val = tf.reduce_mean(errs)
    val_mse = float(hvd.allreduce(local_val, op=hvd.Sum, name="val_mse"))
    log_json(event="epoch_end", epoch=epoch, train_loss=float(loss), val_mse=val_mse)

    if val_mse < best:
        best = val_mse
        if hvd.rank() == 0:
            manager.save(checkpoint_number=int(global_step.numpy()))
log_json(event="done", best_val_mse=best)
