#!/usr/bin/env python3
"""MLPerf-style timed run: Keras ResNet-20 on CIFAR-10-like npz data to a target accuracy.

    mpirun -np 8 -bind-to none python run_and_time.py --config configs/8gpu.json
Prints :::MLLOG lines (rank 0) that the result checker parses.
"""
import os
import sys

import horovod.tensorflow.keras as hvd

hvd.init()
# one visible GPU per process; must happen before TensorFlow touches the devices
os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

from mlperf_logging_lite import mllog  # noqa: E402
from src.config import load_config  # noqa: E402
from src.data import build_split  # noqa: E402
from src.model import resnet20  # noqa: E402


def main(argv):
    cfg = load_config(argv)
    mllog.event(mllog.INIT_START)
    keras.utils.set_random_seed(cfg["seed"])

    train_ds, n_train = build_split(cfg["data"], "train", cfg["batch_size"], hvd.rank(), hvd.size())
    val_ds, _ = build_split(cfg["data"], "val", 500, hvd.rank(), hvd.size())
    steps_per_epoch = n_train // (cfg["batch_size"] * hvd.size())

    global_batch = cfg["batch_size"] * hvd.size()
    peak_lr = cfg["lr_per_256"] * global_batch / 256.0
    mllog.event(mllog.GLOBAL_BATCH_SIZE, global_batch)
    mllog.event(mllog.OPT_BASE_LR, peak_lr)

    model = resnet20(num_classes=cfg["num_classes"], weight_decay=cfg["weight_decay"])
    opt = keras.optimizers.SGD(learning_rate=peak_lr, momentum=0.9, nesterov=True)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=peak_lr, warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch),
        hvd.callbacks.LearningRateScheduleCallback(initial_lr=peak_lr, multiplier=0.1,
                                                   start_epoch=cfg["decay_epochs"][0], end_epoch=cfg["decay_epochs"][1]),
        hvd.callbacks.LearningRateScheduleCallback(initial_lr=peak_lr, multiplier=0.01,
                                                   start_epoch=cfg["decay_epochs"][1]),
        mllog.MLLogCallback(target=cfg["target_accuracy"]),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["output_dir"], exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(cfg["output_dir"], "ckpt-{epoch:03d}.weights.h5"), save_weights_only=True))

    mllog.event(mllog.INIT_STOP)
    mllog.event(mllog.RUN_START)
    model.fit(train_ds, epochs=cfg["epochs"], steps_per_epoch=steps_per_epoch, validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    loss, acc = model.evaluate(val_ds, verbose=0)
    acc = float(hvd.allreduce(np.float32(acc), name="final_acc"))
    mllog.event(mllog.EVAL_ACCURACY, acc)
    mllog.event(mllog.RUN_STOP, status="success" if acc >= cfg["target_accuracy"] else "aborted")


if __name__ == "__main__":
    main(sys.argv[1:])
