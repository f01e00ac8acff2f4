#!/usr/bin/env python
"""Grasp policy from teleop trajectories: Keras 3 model.fit + horovod.tensorflow.keras."""
import sys

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from grasp import config
from grasp.callbacks import GraspSuccess, RankZeroCheckpoint
from grasp.episodes import load_episodes, to_windows, worker_slice
from grasp.net import temporal_conv_policy


def run(cfg):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    local_gpus = tf.config.list_physical_devices("GPU")
    if local_gpus:
        tf.config.set_visible_devices(local_gpus[hvd.local_rank()], "GPU")

    d, o, t = cfg["data"], cfg["optim"], cfg["train"]
    episodes = load_episodes(d["path"], d["synthetic"])
    val_eps, train_eps = episodes[:d["val_episodes"]], episodes[d["val_episodes"]:]
    x, y = to_windows(train_eps, d["window"])
    x, y = worker_slice(x, y, hvd.rank(), hvd.size())
    xv, yv = to_windows(val_eps, d["window"])  # full validation set on every worker

    model = temporal_conv_policy(d["window"], x.shape[-1], y.shape[-1])
    scaled_lr = o["lr"] * hvd.size()
    opt = keras.optimizers.Adam(learning_rate=scaled_lr)
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse", metrics=["mae"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=o["warmup_epochs"]),
        RankZeroCheckpoint(t["out_dir"]),
        GraspSuccess(d["window"], x.shape[-1], t["eval_every"], t["eval_episodes"]),
    ]
    model.fit(x, y, batch_size=o["batch_per_worker"], epochs=t["epochs"], shuffle=True,
              validation_data=(xv, yv), callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    run(config.load(sys.argv[1] if len(sys.argv) > 1 else "configs/grasp.yaml"))
