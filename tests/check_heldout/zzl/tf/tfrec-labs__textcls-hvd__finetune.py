"""Sentiment classifier fine-tuning, data parallel over Horovod workers.

horovodrun -np 4 python finetune.py --epochs 3
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from textcls import DistConfig, TrainConfig
from textcls.data import make_dataset, steps_per_epoch
from textcls.evaluate import evaluate
from textcls.model import TextClassifier


def parse(cfg: TrainConfig) -> TrainConfig:
    ap = argparse.ArgumentParser()
    for name, val in vars(cfg).items():
        ap.add_argument(f"--{name}", type=type(val), default=val)
    return TrainConfig(**vars(ap.parse_args()))


def main():
    cfg = parse(TrainConfig())
    hvd.init()
    dist = DistConfig()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[dist.local_rank], True)
        tf.config.set_visible_devices(gpus[dist.local_rank], "GPU")

    train_ds = make_dataset(cfg.data_dir, "train", cfg.batch_size,
                            dist.world_size, dist.rank, training=True)
    val_ds = make_dataset(cfg.data_dir, "test", cfg.batch_size,
                          dist.world_size, dist.rank, training=False)
    n_steps = steps_per_epoch(cfg.data_dir, cfg.batch_size, dist.world_size)

    model = TextClassifier(cfg.vocab_size, cfg.max_len)
    opt = tf.keras.optimizers.Adam(cfg.lr * dist.world_size)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(cfg.out_dir, "ckpt"), 3)

    @tf.function
    def step(ids, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(ids, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    first = True
    for epoch in range(cfg.epochs):
        for i, (ids, y) in enumerate(train_ds.take(n_steps)):
            loss = step(ids, y, first)
            first = False
            if dist.is_chief and i % cfg.log_every == 0:
                print(f"epoch {epoch} step {i}/{n_steps} loss {float(loss):.4f}")
        metrics = evaluate(model, val_ds)
        if dist.is_chief:
            print(f"epoch {epoch} " + " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
            manager.save()


if __name__ == "__main__":
    main()
