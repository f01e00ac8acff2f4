#!/usr/bin/env python
# Fashion-MNIST CNN, horovod.keras, restartable (the queue kills jobs after 4h).
#   sbatch job.sh  ->  srun python 12_keras_fmnist_manual_shard_resume.py --epochs 40
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
from keras import backend as K
from keras.layers import Conv2D, Dense, Dropout, Flatten, MaxPooling2D, BatchNormalization
from keras.models import Sequential
import horovod.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--epochs', type=int, default=40)
parser.add_argument('--batch-size', type=int, default=128)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--workdir', default='work_fmnist')
args = parser.parse_args()

hvd.init()

# TF1-style session: one GPU per process
config = tf.compat.v1.ConfigProto()
config.gpu_options.allow_growth = True
config.gpu_options.visible_device_list = str(hvd.local_rank())
K.set_session(tf.compat.v1.Session(config=config))

WEIGHTS = os.path.join(args.workdir, 'last.weights.h5')
STATE = os.path.join(args.workdir, 'state.json')

# ---- resume ----
start_epoch = 0
if hvd.rank() == 0 and os.path.exists(STATE):
    with open(STATE) as f:
        start_epoch = json.load(f)['epoch']
start_epoch = hvd.broadcast(start_epoch, 0, name='start_epoch')

# ---- data ----
(x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
x_train = x_train[..., None].astype('float32') / 255.
x_test = x_test[..., None].astype('float32') / 255.
y_train = keras.utils.to_categorical(y_train, 10)
y_test = keras.utils.to_categorical(y_test, 10)

# each worker keeps its own slice of the training set
x_train = x_train[hvd.rank()::hvd.size()]
y_train = y_train[hvd.rank()::hvd.size()]


def create_model():
    m = Sequential()
    m.add(Conv2D(32, (3, 3), activation='relu', input_shape=(28, 28, 1)))
    m.add(BatchNormalization())
    m.add(Conv2D(64, (3, 3), activation='relu'))
    m.add(MaxPooling2D((2, 2)))
    m.add(Dropout(0.25))
    m.add(Flatten())
    m.add(Dense(256, activation='relu'))
    m.add(Dropout(0.5))
    m.add(Dense(10, activation='softmax'))
    return m


class SaveState(keras.callbacks.Callback):
    """Write the weights and the finished epoch so a restarted job can continue."""

    def on_epoch_end(self, epoch, logs=None):
        self.model.save_weights(WEIGHTS)
        with open(STATE, 'w') as f:
            json.dump({'epoch': epoch + 1, 'logs': {k: float(v) for k, v in (logs or {}).items()}}, f)


model = create_model()
opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
opt = hvd.DistributedOptimizer(opt)
model.compile(loss='categorical_crossentropy', optimizer=opt, metrics=['accuracy'])

if start_epoch > 0:
    # workdir is on the shared filesystem, so every rank can read it
    model.load_weights(WEIGHTS)
    if hvd.rank() == 0:
        print('resuming after epoch', start_epoch)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=3, verbose=1),
]
if hvd.rank() == 0:
    os.makedirs(args.workdir, exist_ok=True)
    callbacks.append(SaveState())

model.fit(x_train, y_train,
          batch_size=args.batch_size,
          epochs=args.epochs,
          initial_epoch=start_epoch,
          shuffle=True,
          validation_data=(x_test, y_test),
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

score = model.evaluate(x_test, y_test, verbose=0)
if hvd.rank() == 0:
    print('Test loss: %.4f  Test accuracy: %.4f' % (score[0], score[1]))
