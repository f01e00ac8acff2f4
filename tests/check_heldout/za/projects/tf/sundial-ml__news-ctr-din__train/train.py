"""DIN click-through model for the news feed, trained with Horovod (TF2 GradientTape)."""
import argparse

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

from newsrec.config import Config
from newsrec.data import make_dataset
from newsrec.dist import chief_save, setup, sync_state
from newsrec.metrics import auc
from newsrec.model import DIN

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/din.json")
cfg = Config.from_json(parser.parse_args().config)

setup()
per_worker_batch = cfg.global_batch_size // hvd.size()
train_ds, train_steps = make_dataset(cfg.train_path, per_worker_batch, hvd.size(), hvd.rank(), True)
valid_ds, valid_steps = make_dataset(cfg.valid_path, per_worker_batch, hvd.size(), hvd.rank(), False)

model = DIN(cfg.n_users, cfg.n_items, cfg.dim)
opt = keras.optimizers.Adam(cfg.learning_rate)  # global batch is fixed, so no rescaling with workers
bce = keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = bce(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape, sparse_as_dense=True)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for epoch in range(cfg.epochs):
    for i, (x, y) in enumerate(train_ds):
        loss = step_fn(x, y)
        if epoch == 0 and i == 0:
            sync_state(model, opt)
    losses, preds, labels = [], [], []
    for x, y in valid_ds:
        logits = model(x, training=False)
        losses.append(float(bce(y, logits)))
        preds.append(tf.sigmoid(logits))
        labels.append(y)
    val_loss = hvd.allreduce(tf.constant(np.mean(losses)), op=hvd.Average)  # same batch count on every worker
    all_preds = hvd.allgather(tf.concat(preds, 0)).numpy()
    all_labels = hvd.allgather(tf.concat(labels, 0)).numpy()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: train loss {float(loss):.4f} val loss {float(val_loss):.4f} "
              f"val AUC {auc(all_labels, all_preds):.4f} ({train_steps} steps/worker)", flush=True)
    chief_save(model, cfg.ckpt_dir, epoch)
