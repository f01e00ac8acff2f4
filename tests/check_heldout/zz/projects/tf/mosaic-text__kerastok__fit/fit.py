"""Text classification with a vocabulary built at start-up and tokenization in tf.data.

    horovodrun -np 4 python fit.py --train data/train.tsv --valid data/valid.tsv
"""
from dataclasses import dataclass
import argparse

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from textpipe import build_shared_vocab, count_lines, line_dataset
from textpipe.callbacks import training_callbacks
from textpipe.model import text_cnn


@dataclass
class Config:
    train: str = "data/train.tsv"
    valid: str = "data/valid.tsv"
    vocab_size: int = 30000
    seq_len: int = 200
    classes: int = 4
    batch_size: int = 128
    lr: float = 1e-3
    epochs: int = 12
    warmup_epochs: int = 2
    run_dir: str = "runs/textcnn"


def parse() -> Config:
    cfg = Config()
    ap = argparse.ArgumentParser()
    for name, value in vars(cfg).items():
        ap.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return Config(**vars(ap.parse_args()))


def main(cfg: Config):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    vocab = build_shared_vocab(cfg.train, cfg.vocab_size, hvd.rank())
    train_ds = line_dataset(cfg.train, vocab, cfg.seq_len, cfg.batch_size,
                            num_shards=hvd.size(), index=hvd.rank(), seed=hvd.rank())
    valid_ds = line_dataset(cfg.valid, vocab, cfg.seq_len, 256,
                            num_shards=hvd.size(), index=hvd.rank(), training=False)
    steps = count_lines(cfg.train) // (cfg.batch_size * hvd.size())

    scaled_lr = cfg.lr * hvd.size()
    model = text_cnn(len(vocab), cfg.seq_len, cfg.classes)
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(scaled_lr)),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs, validation_data=valid_ds,
              callbacks=training_callbacks(cfg.run_dir, scaled_lr, cfg.warmup_epochs, steps),
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main(parse())
