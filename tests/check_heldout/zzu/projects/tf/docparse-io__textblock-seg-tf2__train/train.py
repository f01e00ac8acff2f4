"""Text-block segmentation for document pages (TF2 custom loop + Horovod)."""
import argparse
import dataclasses
import time

import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from docparse.config import Config
from docparse.data import page_dataset
from docparse.device import setup_gpus
from docparse.losses import bce_dice, f1_counts
from docparse.model import text_block_net


def get_config():
    cfg = Config()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        ap.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    return Config(**vars(ap.parse_args()))


def main():
    cfg = get_config()
    hvd.init()
    n_gpus = setup_gpus(hvd.local_rank())
    if hvd.rank() == 0:
        print(f"{hvd.size()} workers, {n_gpus} GPUs visible per node", flush=True)

    train_ds, n_train = page_dataset(cfg.train_list, cfg.image_size, cfg.batch_size, hvd.size(), hvd.rank(), True)
    val_ds, _ = page_dataset(cfg.val_list, cfg.image_size, cfg.batch_size, hvd.size(), hvd.rank(), False)
    steps_per_epoch = n_train // (cfg.batch_size * hvd.size())

    model = text_block_net(cfg.image_size)
    schedule = keras.optimizers.schedules.CosineDecay(cfg.base_lr * hvd.size(), cfg.epochs * steps_per_epoch)
    optimizer = keras.optimizers.AdamW(learning_rate=schedule, weight_decay=cfg.weight_decay)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=cfg.keep_ckpts)
    resumed = manager.latest_checkpoint is not None
    if resumed:
        ckpt.restore(manager.latest_checkpoint)

    @tf.function
    def train_step(img, mask):
        with tf.GradientTape() as tape:
            loss = bce_dice(mask, model(img, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(img, mask):
        return f1_counts(mask, model(img, training=False))

    it = iter(train_ds)
    for epoch in range(int(ckpt.epoch.numpy()), cfg.epochs):
        t0 = time.time()
        for step in range(steps_per_epoch):
            img, mask = next(it)
            loss = train_step(img, mask)
            if epoch == int(ckpt.epoch.numpy()) and step == 0 and resumed:
                # optimizer slots exist only after the first step; sync everything once
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
            if hvd.rank() == 0 and step % cfg.log_every == 0:
                print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {loss.numpy():.4f}", flush=True)

        counts = tf.zeros(3)
        for img, mask in val_ds:
            counts += eval_step(img, mask)
        tp, fp, fn = hvd.allreduce(counts, op=hvd.Sum).numpy()
        f1 = 2 * tp / max(2 * tp + fp + fn, 1.0)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val pixel F1 {f1:.4f} ({time.time() - t0:.0f}s)", flush=True)
            ckpt.epoch.assign(epoch + 1)
            manager.save()


if __name__ == "__main__":
    main()
