"""Fine-tune the catalog image embedder (GradientTape loop, horovod.tensorflow).

Pipeline usage: `from train import run; run(FinetuneConfig.from_yaml(path))`.
CLI usage:      `horovodrun -np 4 python train.py configs/finetune.yaml`.
"""
import json
import sys

import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from embedft import distributed
from embedft.checkpoint import ChiefCheckpointer
from embedft.config import FinetuneConfig
from embedft.data import make_datasets
from embedft.model import build_embedder


def run(cfg: FinetuneConfig):
    distributed.init()
    train_ds, val_ds, n_classes = make_datasets(cfg, hvd.rank(), hvd.size())
    model = build_embedder(n_classes, cfg.embed_dim)
    optimizer = keras.optimizers.Adam(learning_rate=distributed.scaled_lr(cfg.base_lr))
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    checkpointer = ChiefCheckpointer(cfg.checkpoint_prefix, model=model, optimizer=optimizer)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    synced = False
    summary = {}
    for epoch in range(cfg.epochs):
        for x, y in train_ds:
            loss = train_step(x, y)
            if not synced:
                distributed.sync_initial_state(model, optimizer)
                synced = True
        accs, losses = [], []
        for x, y in val_ds:
            logits = model(x, training=False)
            losses.append(float(loss_fn(y, logits)))
            accs.append(float(tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))))
        summary = {"epoch": epoch, "train_loss": float(loss),
                   "val_loss": float(distributed.mean_over_workers(sum(losses) / max(len(losses), 1), "val_loss")),
                   "val_acc": float(distributed.mean_over_workers(sum(accs) / max(len(accs), 1), "val_acc"))}
        if hvd.rank() == 0:
            print(json.dumps({"run": cfg.run_name, **summary}), flush=True)
        checkpointer.save(epoch)
    return summary


if __name__ == "__main__":
    run(FinetuneConfig.from_yaml(sys.argv[1] if len(sys.argv) > 1 else "configs/finetune.yaml"))
