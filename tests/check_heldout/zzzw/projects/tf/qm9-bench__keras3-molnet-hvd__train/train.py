# molecular property regression (QM9 targets) -- TF 2 / Keras 3 + horovod
# horovodrun -np 4 python train.py --config configs/gap.yaml
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from molnet.config import load_config
from molnet.featurize import pad_molecules, split
from molnet.model import DenseMPNN
from molnet.schedule import WarmupCosine

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/gap.yaml")
ap.add_argument("--epochs", type=int, default=None)
cli = ap.parse_args()
cfg = load_config(cli.config)
if cli.epochs:
    cfg["epochs"] = cli.epochs

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

Z, R, mask, y = pad_molecules(cfg["data"], cfg["max_atoms"], cfg["target"])
tr, va = split(len(y), cfg["val_frac"])
y_mean, y_std = y[tr].mean(), y[tr].std()

def to_ds(idx):
    return tf.data.Dataset.from_tensor_slices(({"Z": Z[idx], "R": R[idx], "mask": mask[idx]},
                                               (y[idx] - y_mean) / y_std))

train_ds = to_ds(tr).shuffle(10000).batch(cfg["batch_size"]).prefetch(tf.data.AUTOTUNE)
val_ds = to_ds(va).batch(cfg["batch_size"])
steps_per_epoch = int(np.ceil(len(tr) / cfg["batch_size"]))

model = DenseMPNN(hidden=cfg["hidden"], layers=cfg["layers"], cutoff=cfg["cutoff"])
hvd.broadcast_variables(model.variables, root_rank=0)

lr = WarmupCosine(cfg["lr"] * hvd.size(), cfg["warmup_epochs"] * steps_per_epoch, cfg["epochs"] * steps_per_epoch)
opt = keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-5)
loss_fn = keras.losses.Huber(delta=1.0)


@tf.function(reduce_retracing=True)
def train_step(x, t):
    with tf.GradientTape() as tape:
        p = model(x, training=True)
        loss = loss_fn(t, p)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function(reduce_retracing=True)
def eval_step(x, t):
    p = model(x, training=False)
    return tf.reduce_sum(tf.abs(p - t)) * y_std, tf.cast(tf.shape(t)[0], tf.float32)


os.makedirs(cfg["out_dir"], exist_ok=True)
best = np.inf
for epoch in range(cfg["epochs"]):
    t0 = time.time()
    run_loss = keras.metrics.Mean()
    for x, t in train_ds:
        run_loss.update_state(train_step(x, t))

    # every worker scores the full validation split
    err, cnt = 0.0, 0.0
    for x, t in val_ds:
        e, c = eval_step(x, t)
        err += float(e); cnt += float(c)
    val_mae = err / cnt

    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{cfg['epochs']} train_loss {run_loss.result():.4f} "
              f"val_MAE {val_mae:.4f} lr {float(opt.learning_rate):.2e} ({time.time() - t0:.0f}s)", flush=True)
    if val_mae < best:
        best = val_mae
        model.save_weights(os.path.join(cfg["out_dir"], "best.weights.h5"))
    model.save_weights(os.path.join(cfg["out_dir"], "last.weights.h5"))
