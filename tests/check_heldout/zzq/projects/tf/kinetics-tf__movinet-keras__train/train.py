"""Fine-tune a tiny MoViNet on Kinetics clips with horovod.tensorflow.keras."""
import argparse
import dataclasses

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from movinet.config import TrainConfig
from movinet.model import build_movinet
from movinet.pipeline import make_dataset, decode_video
from movinet.callbacks import build_callbacks


def parse():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        if f.type in (int, float, str, "int", "float", "str"):
            ap.add_argument("--" + f.name.replace("_", "-"), type=type(getattr(cfg, f.name)),
                            default=getattr(cfg, f.name))
    return dataclasses.replace(cfg, **vars(ap.parse_args()))


def multiclip_accuracy(model, cfg, offset):
    ids = np.arange(offset, offset + cfg.val_videos)[hvd.rank()::hvd.size()]
    hits = 0
    for vid in ids:
        clips = np.stack([decode_video(vid, c, cfg) for c in range(cfg.test_clips)])
        probs = tf.nn.softmax(model(clips, training=False)).numpy().mean(0)
        hits += int(probs.argmax() == vid % cfg.num_classes)
    totals = hvd.allreduce(tf.constant([hits, len(ids)], tf.float64), op=hvd.Sum, name="mc_acc")
    return float(totals[0] / totals[1])


def main():
    cfg = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = make_dataset(cfg, cfg.train_videos, 0, hvd.rank(), hvd.size(), train=True)
    val_ds = make_dataset(cfg, cfg.val_videos, 10_000, hvd.rank(), hvd.size(), train=False)
    steps = cfg.train_videos // (cfg.batch_size * hvd.size())
    val_steps = cfg.val_videos // (cfg.batch_size * hvd.size())

    peak_lr = cfg.base_lr * hvd.size()
    opt = keras.optimizers.Adam(learning_rate=peak_lr)
    opt = hvd.DistributedOptimizer(opt)

    model = build_movinet(cfg)
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=build_callbacks(cfg, peak_lr, steps),
              verbose=2 if hvd.rank() == 0 else 0)

    acc = multiclip_accuracy(model, cfg, 10_000)
    if hvd.rank() == 0:
        print(f"{cfg.test_clips}-clip video accuracy: {acc:.4f}")


if __name__ == "__main__":
    main()
