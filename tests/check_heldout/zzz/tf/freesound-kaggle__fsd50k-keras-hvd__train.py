"""FSD50K sound tagging: 1 s segments for training, clip-level (max over segments) evaluation.

    horovodrun -np 8 python train.py --data-root /data/FSD50K --epochs 60
"""
import argparse
import dataclasses
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from fsd.config import TrainConfig
from fsd.metrics import lwlrap_and_map
from fsd.model import vgg_like
from fsd.pipeline import clip_segments, read_ground_truth, train_dataset


def parse_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainConfig):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return TrainConfig(**vars(parser.parse_args()))


def clip_level_eval(model, paths, targets, cfg, limit=None):
    scores = []
    for path in paths[:limit]:
        seg_scores = model.predict(clip_segments(path, cfg), batch_size=64, verbose=0)
        scores.append(seg_scores.max(axis=0))
    return lwlrap_and_map(targets[:limit], np.stack(scores))


def main():
    cfg = parse_config()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    keras.utils.set_random_seed(1000 + hvd.rank())  # different crops/augmentation per worker

    train_paths, train_y, vocab = read_ground_truth(cfg.data_root, "dev")
    eval_paths, eval_y, _ = read_ground_truth(cfg.data_root, "eval")
    batch = cfg.per_replica_batch(hvd.size())
    train_ds = train_dataset(train_paths, train_y, batch, cfg)
    valid_ds = train_dataset(eval_paths[:2000], eval_y[:2000], batch, cfg).take(20)
    steps_per_epoch = len(train_paths) // cfg.global_batch_size

    model = vgg_like(cfg)
    lr = cfg.scaled_lr(hvd.size())
    optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=optimizer, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(multi_label=True, num_labels=cfg.num_classes, name="auc")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=cfg.warmup_epochs, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "best.keras"),
                                                         monitor="val_auc", mode="max", save_best_only=True))

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs, validation_data=valid_ds,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        lwlrap, m_ap = clip_level_eval(model, eval_paths, eval_y, cfg)
        with open(os.path.join(cfg.out_dir, "eval.json"), "w") as f:
            json.dump({"clip_lwlrap": lwlrap, "clip_mAP": m_ap, "classes": len(vocab)}, f, indent=2)
        print(f"eval: lwlrap {lwlrap:.4f}  mAP {m_ap:.4f}")


if __name__ == "__main__":
    main()
