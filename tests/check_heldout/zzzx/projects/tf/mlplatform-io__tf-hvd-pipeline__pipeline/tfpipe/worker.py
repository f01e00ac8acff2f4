import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from tfpipe.datasets import load_split
from tfpipe.models import build
from tfpipe.optim import build_optimizer


def _pin():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def worker_main(cfg):
    hvd.init()
    _pin()
    tf.random.set_seed(cfg["seed"])

    train_ds, n_features = load_split(cfg["train_path"], cfg["batch_size"], hvd.size(), hvd.rank(), True)
    val_ds, _ = load_split(cfg["val_path"], cfg["batch_size"], hvd.size(), hvd.rank(), False)

    model = build(cfg["model"], n_features)
    opt = build_optimizer(cfg["optimizer"])
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    auc = keras.metrics.AUC(from_logits=True)
    val_loss = keras.metrics.Mean()

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y[:, None], logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    metrics = {}
    first = True
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        for x, y in train_ds:
            loss = train_step(x, y, first)
            first = False
        auc.reset_state()
        val_loss.reset_state()
        for x, y in val_ds:
            logits = model(x, training=False)
            auc.update_state(y[:, None], logits)
            val_loss.update_state(loss_fn(y[:, None], logits))
        metrics = {"epoch": epoch, "val_auc": float(auc.result()), "val_loss": float(val_loss.result())}
        if hvd.rank() == 0:
            print("epoch {epoch}: val_auc={val_auc:.4f} val_loss={val_loss:.4f}".format(**metrics),
                  "({:.1f}s)".format(time.time() - t0), flush=True)
            ckpt.write(os.path.join(cfg["output_dir"], "ckpt"))
    return metrics
