#!/usr/bin/env python
"""CIFAR-10 ResNet-ish training with an orbit-style controller on Horovod.

    horovodrun -np 8 -H host1:4,host2:4 python run_experiment.py --config configs/cifar.json
"""
import argparse
import logging

import tensorflow as tf
import horovod.tensorflow as hvd

from experiment.config import ExperimentConfig
from experiment.task import ClassificationTask, cifar_input_fn
from orbit_lite import Controller

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")


def build_model(num_classes):
    inputs = tf.keras.Input((32, 32, 3))
    x = inputs
    for filters in (32, 64, 128):
        x = tf.keras.layers.Conv2D(filters, 3, padding="same", use_bias=False,
                                   kernel_regularizer=tf.keras.regularizers.l2(5e-4))(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
        x = tf.keras.layers.MaxPooling2D()(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(num_classes)(x))


def input_context():
    return tf.distribute.InputContext(num_input_pipelines=hvd.size(),
                                      input_pipeline_id=hvd.rank(),
                                      num_replicas_in_sync=hvd.size())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None)
    parser.add_argument("--model_dir", default=None)
    args = parser.parse_args()
    cfg = ExperimentConfig.from_json(args.config) if args.config else ExperimentConfig()
    if args.model_dir:
        cfg.model_dir = args.model_dir

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    ctx = input_context()
    train_ds = cifar_input_fn("train", cfg.global_batch_size)(ctx)
    eval_ds = cifar_input_fn("test", cfg.global_batch_size)(ctx)

    model = build_model(cfg.num_classes)
    optimizer = tf.keras.optimizers.SGD(cfg.learning_rate, momentum=cfg.momentum)
    task = ClassificationTask(cfg, model, optimizer, train_ds, eval_ds)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, cfg.model_dir, max_to_keep=5)
    controller = Controller(task, task, manager, summary_dir=cfg.model_dir,
                            steps_per_loop=cfg.steps_per_loop,
                            is_chief=hvd.rank() == 0)
    controller.restore()
    controller.train_and_evaluate(cfg.train_steps)


if __name__ == "__main__":
    main()
