"""Intent classifier training for the support-bot NLU service."""
import argparse
import glob
import logging
from dataclasses import dataclass, field
from typing import List

import keras
import horovod.tensorflow.keras as hvd

from intent.callbacks import build_callbacks
from intent.env import configure_gpus, is_chief, setup_logging
from intent.pipeline import make_vectorizer, read_jsonl_shards, to_dataset


@dataclass
class TrainConfig:
    train_glob: str = "data/intents/train-*.jsonl"
    val_glob: str = "data/intents/val-*.jsonl"
    output_dir: str = "models/intent"
    vocab_size: int = 30000
    seq_len: int = 48
    num_intents: int = 77
    batch_size: int = 64
    lr: float = 1e-3
    epochs: int = 15
    patience: int = 3
    callbacks: List[str] = field(default_factory=lambda: ["sync", "checkpoint", "early_stop"])


def build_model(cfg):
    inp = keras.Input((cfg.seq_len,), dtype="int64")
    x = keras.layers.Embedding(cfg.vocab_size, 128)(inp)
    x = keras.layers.Bidirectional(keras.layers.GRU(64))(x)
    x = keras.layers.Dropout(0.2)(x)
    return keras.Model(inp, keras.layers.Dense(cfg.num_intents, activation="softmax")(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--lr", type=float)
    parser.add_argument("--output-dir")
    cli = {k: v for k, v in vars(parser.parse_args()).items() if v is not None}
    cfg = TrainConfig(**cli)

    hvd.init()
    n_gpus = configure_gpus()
    setup_logging()
    logging.info("workers=%d gpus_visible=%d", hvd.size(), n_gpus)

    tr_texts, tr_labels = read_jsonl_shards(sorted(glob.glob(cfg.train_glob)))
    va_texts, va_labels = read_jsonl_shards(sorted(glob.glob(cfg.val_glob)))
    vectorizer = make_vectorizer(tr_texts, cfg.vocab_size, cfg.seq_len)
    train_ds = to_dataset(tr_texts, tr_labels, vectorizer, cfg.batch_size,
                          shard=(hvd.size(), hvd.rank()), training=True)
    val_ds = to_dataset(va_texts, va_labels, vectorizer, cfg.batch_size)
    steps = len(tr_texts) // (cfg.batch_size * hvd.size())

    model = build_model(cfg)
    optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size()))
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps, validation_data=val_ds,
              callbacks=build_callbacks(cfg), verbose=1 if is_chief() else 0)


if __name__ == "__main__":
    main()
