"""Supervised fine-tuning of swe-gpt on packed instruction data (Keras 3 + Horovod)."""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras

from swegpt import setup_runtime
from swegpt.config import SFTConfig
from swegpt.data import packed_examples, to_dataset
from swegpt.model import swe_gpt


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/sft.yaml")
    p.add_argument("overrides", nargs="*")
    return p.parse_args()


def main():
    args = parse_args()
    rank, size = setup_runtime()
    cfg = SFTConfig.load(args.config, args.overrides)

    train_ds, steps_per_epoch = to_dataset(packed_examples(cfg.train_files, cfg.seq_len),
                                           cfg.batch_size, rank, size, shuffle=True)
    val_ds, val_steps = to_dataset(packed_examples(cfg.val_files, cfg.seq_len),
                                   cfg.batch_size, rank, size, shuffle=False)

    model = swe_gpt(cfg)
    if cfg.pretrained:
        model.load_weights(cfg.pretrained)

    total = steps_per_epoch * cfg.epochs
    lr = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0, decay_steps=total - cfg.warmup_steps, alpha=0.1,
        warmup_target=cfg.lr, warmup_steps=cfg.warmup_steps)
    optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="tok_acc")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if rank == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(cfg.out_dir, "sft.weights.h5"), save_weights_only=True,
            save_freq=cfg.save_every_steps))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv")))

    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=callbacks, verbose=1 if rank == 0 else 0)
    if rank == 0:
        model.save_weights(os.path.join(cfg.out_dir, "final.weights.h5"))


if __name__ == "__main__":
    main()
