#!/usr/bin/env python
"""Optimizer shoot-out on Fashion-MNIST: same model, same budget, one optimizer per run.

    horovodrun -np 4 python shootout.py --optimizers sgd,adam,lamb,lion --epochs 10
"""
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

OPTS = {
    'sgd': (keras.optimizers.SGD, dict(momentum=0.9, nesterov=True), 0.02),
    'adam': (keras.optimizers.Adam, {}, 1e-3),
    'lamb': (keras.optimizers.Lamb, {}, 2e-3),
    'lion': (keras.optimizers.Lion, {}, 1e-4),
    'adafactor': (keras.optimizers.Adafactor, {}, 1e-2),
}


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument('--optimizers', default='sgd,adam,lamb')
    p.add_argument('--epochs', type=int, default=10)
    p.add_argument('--batch-size', type=int, default=128)
    p.add_argument('--warmup', type=int, default=2, help='warm-up epochs')
    p.add_argument('--outdir', default='shootout')
    return p.parse_args()


def load_data():
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.fashion_mnist.load_data()
    x_tr = (x_tr[..., None] / 255.0).astype('float32')
    x_te = (x_te[..., None] / 255.0).astype('float32')
    return (x_tr, y_tr.astype('int64')), (x_te, y_te.astype('int64'))


def build_model():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation='relu'),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation='relu'),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.3),
        keras.layers.Dense(10),
    ])


def run(name, args, train, test):
    cls, kw, base_lr = OPTS[name]
    lr = base_lr * hvd.size()
    model = build_model()
    model.compile(optimizer=hvd.DistributedOptimizer(cls(learning_rate=lr, **kw)),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])

    train_ds = (tf.data.Dataset.from_tensor_slices(train).shard(hvd.size(), hvd.rank())
                .shuffle(10000).batch(args.batch_size).repeat())
    test_ds = tf.data.Dataset.from_tensor_slices(test).shard(hvd.size(), hvd.rank()).batch(1000)
    steps = len(train[0]) // (args.batch_size * hvd.size())

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, steps_per_epoch=steps,
                                                 verbose=1),
        keras.callbacks.ModelCheckpoint(os.path.join(args.outdir, name + '-{epoch:02d}.keras')),
    ]
    hist = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=test_ds,
                     callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
    return {k: [float(v) for v in vals] for k, vals in hist.history.items()}


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices('GPU')
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')
    os.makedirs(args.outdir, exist_ok=True)

    train, test = load_data()
    results = {}
    for name in args.optimizers.split(','):
        results[name] = run(name, args, train, test)
        if hvd.rank() == 0:
            print(name, 'best val acc', max(results[name]['val_accuracy']))
    if hvd.rank() == 0:
        with open(os.path.join(args.outdir, 'results_np%d.json' % hvd.size()), 'w') as f:
            json.dump(results, f)
        np.save(os.path.join(args.outdir, 'final_acc.npy'),
                np.array([results[n]['val_accuracy'][-1] for n in results]))


if __name__ == '__main__':
    main()
