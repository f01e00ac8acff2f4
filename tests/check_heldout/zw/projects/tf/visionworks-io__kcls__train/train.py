# Copyright (c) VisionWorks. All rights reserved.
import argparse
import os
import os.path as osp
import time

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from kcls.configs import get_config
from kcls.datasets import build_dataset
from kcls.models import build_classifier
from kcls.optim import build_optimizer


def parse_args():
    parser = argparse.ArgumentParser(description='kcls: train a classifier')
    parser.add_argument('config', help='config class name, e.g. ResNet18_CIFAR100')
    parser.add_argument('--work-dir', help='where to save logs and models')
    parser.add_argument('--resume', action='store_true', help='resume from work_dir/latest.weights.h5')
    parser.add_argument('--amp', action='store_true')
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = get_config(args.config)
    work_dir = args.work_dir or osp.join('work_dirs', args.config.lower())

    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    if args.amp:
        keras.mixed_precision.set_global_policy('mixed_float16')
    keras.utils.set_random_seed(cfg.seed)
    os.makedirs(work_dir, exist_ok=True)

    train_ds, train_len = build_dataset(cfg.data_train, cfg.samples_per_gpu, training=True)
    val_ds, val_len = build_dataset(cfg.data_val, cfg.samples_per_gpu, training=False)

    model = build_classifier(cfg.model)
    optimizer = build_optimizer(model, cfg.optimizer, total_epochs=cfg.total_epochs,
                                steps_per_epoch=train_len // (cfg.samples_per_gpu * hvd.size()))
    model.compile(optimizer=optimizer, loss=keras.losses.CategoricalCrossentropy(label_smoothing=cfg.label_smoothing),
                  metrics=[keras.metrics.CategoricalAccuracy(name='top1'), keras.metrics.TopKCategoricalAccuracy(5, name='top5')])
    if args.resume and osp.exists(osp.join(work_dir, 'latest.weights.h5')):
        model.load_weights(osp.join(work_dir, 'latest.weights.h5'))

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ModelCheckpoint(osp.join(work_dir, 'latest.weights.h5'), save_weights_only=True),
        keras.callbacks.ModelCheckpoint(osp.join(work_dir, 'best_top1.weights.h5'), save_weights_only=True,
                                        monitor='val_top1', mode='max', save_best_only=True),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(osp.join(work_dir, time.strftime('%Y%m%d_%H%M%S') + '.csv')))

    model.fit(train_ds, epochs=cfg.total_epochs,
              steps_per_epoch=train_len // (cfg.samples_per_gpu * hvd.size()),
              validation_data=val_ds, validation_steps=val_len // (cfg.samples_per_gpu * hvd.size()),
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == '__main__':
    main()
