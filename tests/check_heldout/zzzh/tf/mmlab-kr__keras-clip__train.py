"""Keras CLIP on precomputed image features, data-parallel with Horovod.

horovodrun -np 4 python train.py --epochs 12 --data_dir /scratch/coco_feats
"""
import argparse
import dataclasses

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from kclip.config import Config
from kclip.data import read_split, make_train_ds
from kclip.model import build_towers
from kclip.callbacks import GalleryRecall, build_callbacks


def parse():
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        ap.add_argument(f"--{f.name}", type=f.type, default=f.default)
    return Config(**vars(ap.parse_args()))


def main():
    cfg = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    tr_img, tr_cap = read_split(cfg.data_dir, "train")
    va_img, va_cap = read_split(cfg.data_dir, "val")
    vectorizer = keras.layers.TextVectorization(max_tokens=cfg.max_tokens,
                                                output_sequence_length=cfg.seq_len)
    vectorizer.adapt(tr_cap)

    train_ds = make_train_ds(tr_img, tr_cap, cfg.batch_size, hvd.size(), hvd.rank())
    steps_per_epoch = len(tr_img) // (cfg.batch_size * hvd.size())

    model, image_tower, text_tower = build_towers(tr_img.shape[1], vectorizer, cfg.embed_dim)
    scaled_lr = cfg.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["sparse_categorical_accuracy"])

    recall = GalleryRecall(image_tower, text_tower, va_img, va_cap)
    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch,
              callbacks=build_callbacks(cfg, scaled_lr, steps_per_epoch, recall),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
