#!/usr/bin/env python
# Class-incremental CIFAR-10 with a rehearsal set, keras fit + horovod
# run: horovodrun -np 4 python train_replay.py --epochs 15 --memory 2000

import argparse
import os
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='cifar10.npz')
parser.add_argument('--increments', default='2,2,2,2,2')
parser.add_argument('--epochs', type=int, default=15)
parser.add_argument('--batch-size', type=int, default=128)
parser.add_argument('--lr', type=float, default=0.001)
parser.add_argument('--warmup', type=int, default=3, help='warmup epochs')
parser.add_argument('--memory', type=int, default=2000)
parser.add_argument('--out', default='./models')
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

data = np.load(args.data)
x_train, y_train = data['x_train'].astype('float32') / 255., data['y_train'].reshape(-1)
x_test, y_test = data['x_test'].astype('float32') / 255., data['y_test'].reshape(-1)
n_classes = int(y_train.max()) + 1
sizes = [int(s) for s in args.increments.split(',')]
splits = np.split(np.arange(n_classes), np.cumsum(sizes)[:-1])


def build_model():
    m = keras.Sequential([
        keras.Input(x_train.shape[1:]),
        keras.layers.Conv2D(32, 3, activation='relu', padding='same'),
        keras.layers.Conv2D(32, 3, activation='relu'),
        keras.layers.MaxPooling2D(),
        keras.layers.Dropout(0.25),
        keras.layers.Conv2D(64, 3, activation='relu', padding='same'),
        keras.layers.Conv2D(64, 3, activation='relu'),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(512, activation='relu'),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(n_classes, activation='softmax'),
    ])
    return m


def herd_memory(x, y, classes, per_class, rng):
    keep = []
    for c in classes:
        idx = np.flatnonzero(y == c)
        keep.append(rng.choice(idx, size=min(per_class, len(idx)), replace=False))
    return np.concatenate(keep)


model = build_model()
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
model.compile(optimizer=hvd.DistributedOptimizer(opt),
              loss='sparse_categorical_crossentropy', metrics=['accuracy'])

rng = np.random.RandomState(0)
memory_idx = np.array([], dtype=np.int64)
seen = []
os.makedirs(args.out, exist_ok=True)

for task, classes in enumerate(splits):
    cur_idx = np.flatnonzero(np.isin(y_train, classes))
    train_idx = np.concatenate([cur_idx, memory_idx])
    xt, yt = x_train[train_idx], y_train[train_idx]
    seen += list(classes)
    val_mask = np.isin(y_test, seen)

    train_ds = tf.data.Dataset.from_tensor_slices((xt, yt)) \
        .shard(hvd.size(), hvd.rank()).shuffle(10000).repeat().batch(args.batch_size)
    val_ds = tf.data.Dataset.from_tensor_slices((x_test[val_mask], y_test[val_mask])) \
        .shard(hvd.size(), hvd.rank()).batch(256)

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(),
                                                 warmup_epochs=args.warmup_epochs, verbose=1),
        keras.callbacks.ModelCheckpoint(os.path.join(args.out, 'task%d-{epoch:02d}.keras' % task)),
    ]

    hist = model.fit(train_ds,
                     steps_per_epoch=len(xt) // (args.batch_size * hvd.size()),
                     epochs=args.epochs,
                     validation_data=val_ds,
                     callbacks=callbacks,
                     verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        print('task %d: val_accuracy on %d seen classes = %.4f'
              % (task, len(seen), hist.history['val_accuracy'][-1]))

    per_class = args.memory // len(seen)
    memory_idx = herd_memory(x_train, y_train, seen, per_class, rng)
