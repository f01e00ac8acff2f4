# -*- coding: utf-8 -*-
# Keras 3 + horovod, image classifier with a linear-warmup / cosine lr schedule
# horovodrun -np 4 -H localhost:4 python train_keras.py --epochs 30
import argparse
import math
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--batch_size', type=int, default=64)
parser.add_argument('--lr', type=float, default=0.001)
parser.add_argument('--warmup', type=int, default=3, help='warmup epochs')
parser.add_argument('--n_samples', type=int, default=4000)
parser.add_argument('--logdir', type=str, default='logs')
parser.add_argument('--ckpt', type=str, default='checkpoints/model-{epoch:02d}.keras')
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup_steps, total_steps):
        super().__init__()
        self.peak = peak
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps

    def __call__(self, step):
        step = keras.ops.cast(step, 'float32')
        warm = self.peak * step / self.warmup_steps
        prog = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak * (1.0 + keras.ops.cos(math.pi * keras.ops.minimum(prog, 1.0)))
        return keras.ops.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return dict(peak=self.peak, warmup_steps=self.warmup_steps, total_steps=self.total_steps)


class F1Score(keras.metrics.Metric):
    def __init__(self, name='f1', **kwargs):
        super().__init__(name=name, **kwargs)
        self.tp = self.add_weight(name='tp', initializer='zeros')
        self.fp = self.add_weight(name='fp', initializer='zeros')
        self.fn = self.add_weight(name='fn', initializer='zeros')

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = keras.ops.cast(keras.ops.reshape(y_true, (-1,)), 'float32')
        y_hat = keras.ops.cast(keras.ops.reshape(y_pred, (-1,)) > 0.5, 'float32')
        self.tp.assign_add(keras.ops.sum(y_true * y_hat))
        self.fp.assign_add(keras.ops.sum((1 - y_true) * y_hat))
        self.fn.assign_add(keras.ops.sum(y_true * (1 - y_hat)))

    def result(self):
        p = self.tp / (self.tp + self.fp + 1e-7)
        r = self.tp / (self.tp + self.fn + 1e-7)
        return 2 * p * r / (p + r + 1e-7)

    def reset_state(self):
        for v in (self.tp, self.fp, self.fn):
            v.assign(0.0)


class LRLogger(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        lr = self.model.optimizer.learning_rate
        if logs is not None:
            logs['lr'] = float(keras.ops.convert_to_numpy(lr))


# ---- data (binary task, random for now)
rng = np.random.RandomState(0)
x = rng.rand(args.n_samples, 64, 64, 3).astype('float32')
y = (rng.rand(args.n_samples) > 0.5).astype('float32')
x_val, y_val = x[:500], y[:500]
x_train, y_train = x[500:], y[500:]

steps_per_epoch = len(x_train) // (args.batch_size * hvd.size())

train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_ds = train_ds.shuffle(10000).shard(hvd.size(), hvd.rank())
train_ds = train_ds.batch(args.batch_size).repeat().prefetch(tf.data.AUTOTUNE)
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(args.batch_size)

# ---- model
inputs = keras.Input(shape=(64, 64, 3))
h = keras.layers.Conv2D(32, 3, activation='relu')(inputs)
h = keras.layers.MaxPooling2D()(h)
h = keras.layers.Conv2D(64, 3, activation='relu')(h)
h = keras.layers.GlobalAveragePooling2D()(h)
h = keras.layers.Dense(64, activation='relu')(h)
outputs = keras.layers.Dense(1, activation='sigmoid')(h)
model = keras.Model(inputs, outputs)

schedule = WarmupCosine(peak=args.lr * hvd.size(),
                        warmup_steps=args.warmup_epochs * steps_per_epoch,
                        total_steps=args.epochs * steps_per_epoch)
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=schedule))
model.compile(optimizer=opt, loss='binary_crossentropy', metrics=['accuracy', F1Score()])

callbacks = [
    hvd.callbacks.MetricAverageCallback(),
    LRLogger(),
]
# rank 0 is the one that owns the weights / writes the files
if hvd.rank() == 0:
    os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
    callbacks += [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ModelCheckpoint(args.ckpt),
        keras.callbacks.TensorBoard(log_dir=args.logdir),
    ]

model.fit(train_ds,
          steps_per_epoch=steps_per_epoch,
          epochs=args.epochs,
          validation_data=val_ds,
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)
