"""Trains the DCN click-through model on the sharded TFRecord logs (horovodrun -np N python train.py)."""
import argparse
import dataclasses

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from ctr.callbacks import build_callbacks
from ctr.config import TrainConfig
from ctr.data import make_dataset
from ctr.export import export_for_serving
from ctr.model import DeepCrossNet


def parse_config():
    cfg = TrainConfig()
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return TrainConfig(**vars(p.parse_args()))


def main():
    cfg = parse_config()
    hvd.init()

    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = make_dataset(cfg, cfg.train_pattern, hvd.rank(), hvd.size(), training=True)
    eval_ds = make_dataset(cfg, cfg.eval_pattern, hvd.rank(), hvd.size(), training=False)

    model = DeepCrossNet(cfg.num_buckets, cfg.num_sparse, cfg.embed_dim)

    total_steps = cfg.epochs * cfg.steps_per_epoch
    warmup_steps = cfg.warmup_epochs * cfg.steps_per_epoch
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=cfg.base_lr,
        decay_steps=total_steps - warmup_steps,
        warmup_target=cfg.base_lr * hvd.size(),
        warmup_steps=warmup_steps,
    )
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=schedule))
    model.compile(optimizer=opt)

    model.fit(
        train_ds,
        epochs=cfg.epochs,
        steps_per_epoch=cfg.steps_per_epoch,
        validation_data=eval_ds,
        validation_steps=cfg.eval_steps,
        callbacks=build_callbacks(cfg, is_chief=hvd.rank() == 0),
        verbose=2 if hvd.rank() == 0 else 0,
    )

    if hvd.rank() == 0:
        print("exported", export_for_serving(model, cfg.model_dir))


if __name__ == "__main__":
    main()
