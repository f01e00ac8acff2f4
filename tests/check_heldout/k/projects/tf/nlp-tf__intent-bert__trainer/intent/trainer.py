"""Training entry points used by `intent.cli` (and by notebooks)."""
import os

import horovod.tensorflow.keras as hvd
import keras
import numpy as np
import tensorflow as tf

from .data import label_index, read_tsv, to_dataset
from .model import build_classifier


def _init_worker():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def _encode(tokenizer, texts, max_len):
    ids = np.zeros((len(texts), max_len), dtype=np.int32)
    for i, text in enumerate(texts):
        pieces = tokenizer.encode(text)[:max_len]
        ids[i, :len(pieces)] = pieces
    return ids


def build_optimizer(lr):
    base = keras.optimizers.AdamW(learning_rate=lr * hvd.size(), weight_decay=0.01)
    return base, hvd.DistributedOptimizer(base)


def run(cfg):
    _init_worker()
    from .tokenization import WordPieceTokenizer

    tokenizer = WordPieceTokenizer(cfg.vocab_file, lowercase=True)
    train_texts, train_labels = read_tsv(cfg.train_file)
    val_texts, val_labels = read_tsv(cfg.val_file)
    label_ids = label_index(train_labels)
    y_train = np.array([label_ids[l] for l in train_labels], dtype=np.int32)
    y_val = np.array([label_ids.get(l, 0) for l in val_labels], dtype=np.int32)

    train_ds = to_dataset(_encode(tokenizer, train_texts, cfg.max_len), y_train, cfg.batch_size,
                          hvd.size(), hvd.rank(), training=True)
    val_ds = to_dataset(_encode(tokenizer, val_texts, cfg.max_len), y_val, cfg.batch_size,
                        hvd.size(), hvd.rank(), training=False)

    model = build_classifier(tokenizer.vocab_size, len(label_ids), cfg.max_len,
                             cfg.hidden, cfg.heads, cfg.num_layers)
    adamw, dist_adamw = build_optimizer(cfg.lr)
    model.compile(optimizer=adamw,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "best.keras"),
                                                         monitor="val_accuracy", save_best_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "log.csv")))

    steps = len(y_train) // (cfg.batch_size * hvd.size())
    history = model.fit(train_ds, steps_per_epoch=steps, validation_data=val_ds, epochs=cfg.epochs,
                        callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        best = max(history.history["val_accuracy"])
        print(f"best dev accuracy: {best:.4f}")
    return history
