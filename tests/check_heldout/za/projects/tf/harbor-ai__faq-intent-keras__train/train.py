"""Train the FAQ router (question -> answer id) on all GPUs of the training VM.

    horovodrun -np 4 python train.py --settings faq_settings.json
"""
import argparse

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from faqkit.callbacks import make_callbacks
from faqkit.export import export_serving_assets
from faqkit.data import build_vectorizer, load_pairs, to_dataset
from faqkit.model import build_router
from faqkit.settings import load_settings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="faq_settings.json")
    cfg = load_settings(ap.parse_args().settings)

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_q, train_y = load_pairs(cfg.data_dir, "train")
    val_q, val_y = load_pairs(cfg.data_dir, "val")
    vec = build_vectorizer(train_q, cfg.max_tokens, cfg.seq_len)
    n_answers = max(train_y + val_y) + 1
    train_ds = to_dataset(train_q, train_y, vec, cfg.batch_size, hvd.size(), hvd.rank(), shuffle=True)
    val_ds = to_dataset(val_q, val_y, vec, cfg.batch_size, hvd.size(), hvd.rank(), shuffle=False)

    model = build_router(vec.vocabulary_size(), n_answers, cfg.seq_len, cfg.embed_dim, cfg.filters)
    lr = cfg.lr * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, validation_data=val_ds, epochs=cfg.epochs,
              callbacks=make_callbacks(cfg.out_dir, lr, cfg.warmup_epochs, cfg.patience),
              verbose=2 if hvd.rank() == 0 else 0)
    export_serving_assets(vec, cfg.out_dir, n_answers, cfg.seq_len)


if __name__ == "__main__":
    main()
