# Hyperband (Li et al. 2017) for a Keras CNN on CIFAR-10, with Horovod data parallelism.
# Usage: horovodrun -np 4 python hyperband.py --max-epochs 27 --eta 3
import argparse
import json
import math
import os
import random

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

hvd.init()

parser = argparse.ArgumentParser()
parser.add_argument('--max-epochs', type=int, default=27, help='R: max resource per config')
parser.add_argument('--eta', type=int, default=3)
parser.add_argument('--batch-size', type=int, default=128)
parser.add_argument('--warmup', type=int, default=2)
parser.add_argument('--seed', type=int, default=0)
parser.add_argument('--logdir', default='hb_logs')
args = parser.parse_args()

gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)

(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
x_train, x_test = x_train.astype('float32') / 255., x_test.astype('float32') / 255.
y_train, y_test = y_train.flatten(), y_test.flatten()


def get_config(rng):
    return {
        'lr': 10 ** rng.uniform(-4, -2),
        'filters': rng.choice([32, 48, 64]),
        'depth': rng.choice([2, 3]),
        'dense': rng.choice([128, 256]),
        'l2': 10 ** rng.uniform(-6, -3),
    }


def build(cfg):
    reg = keras.regularizers.l2(cfg['l2'])
    m = keras.Sequential([keras.Input((32, 32, 3))])
    for i in range(cfg['depth']):
        f = cfg['filters'] * 2 ** i
        m.add(keras.layers.Conv2D(f, 3, padding='same', activation='relu', kernel_regularizer=reg))
        m.add(keras.layers.Conv2D(f, 3, padding='same', activation='relu', kernel_regularizer=reg))
        m.add(keras.layers.MaxPooling2D())
    m.add(keras.layers.Flatten())
    m.add(keras.layers.Dense(cfg['dense'], activation='relu', kernel_regularizer=reg))
    m.add(keras.layers.Dense(10, activation='softmax'))
    return m


def run_then_return_val_loss(cfg, n_epochs, tag):
    model = build(cfg)
    opt = keras.optimizers.Adam(learning_rate=cfg['lr'] * hvd.size())
    model.compile(loss='sparse_categorical_crossentropy', optimizer=hvd.DistributedOptimizer(opt),
                  metrics=['accuracy'])
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.logdir, tag + '.keras')))
    hist = model.fit(x_train, y_train, batch_size=args.batch_size, epochs=n_epochs,
                     validation_data=(x_test, y_test), callbacks=callbacks,
                     verbose=1 if hvd.rank() == 0 else 0)
    return hist.history['val_loss'][-1]


rng = random.Random(args.seed)
R, eta = args.max_epochs, args.eta
s_max = int(math.log(R) / math.log(eta) + 1e-9)
B = (s_max + 1) * R
results = []
if hvd.rank() == 0:
    os.makedirs(args.logdir, exist_ok=True)

for s in reversed(range(s_max + 1)):
    n = int(math.ceil(B / R / (s + 1) * eta ** s))
    r = R * eta ** (-s)
    T = [get_config(rng) for _ in range(n)]
    for i in range(s + 1):
        n_i = n * eta ** (-i)
        r_i = int(round(r * eta ** i))
        losses = [run_then_return_val_loss(t, r_i, f'b{s}_r{i}_c{j}') for j, t in enumerate(T)]
        results += [{'bracket': s, 'rung': i, 'epochs': r_i, 'val_loss': l, **t} for t, l in zip(T, losses)]
        order = np.argsort(losses)
        T = [T[k] for k in order[:int(n_i / eta)]]
        if not T:
            break

if hvd.rank() == 0:
    best = min(results, key=lambda r: r['val_loss'])
    print('best config:', best)
    with open(os.path.join(args.logdir, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1)
