'''
VGG-like net on CIFAR-10 with real-time data augmentation.
Horovod version (one process per GPU).
'''
from __future__ import print_function
import os
import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.preprocessing.image import ImageDataGenerator
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense, Dropout, Activation, Flatten
from tensorflow.keras.layers import Conv2D, MaxPooling2D, BatchNormalization
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--epochs', type=int, default=100)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--save-dir', type=str, default='saved_models')
parser.add_argument('--model-name', type=str, default='cifar10_vgg_hvd.h5')
args = parser.parse_args()

num_classes = 10

# Horovod: initialize Horovod.
hvd.init()

# Horovod: pin GPU to be used to process local rank (one GPU per process)
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.rank()], 'GPU')

# The data, split between train and test sets:
(x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
if hvd.rank() == 0:
    print('x_train shape:', x_train.shape)
    print(x_train.shape[0], 'train samples')
    print(x_test.shape[0], 'test samples')

y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)
x_train = x_train.astype('float32') / 255
x_test = x_test.astype('float32') / 255


def conv_block(model, filters, first=False):
    if first:
        model.add(Conv2D(filters, (3, 3), padding='same', input_shape=x_train.shape[1:]))
    else:
        model.add(Conv2D(filters, (3, 3), padding='same'))
    model.add(BatchNormalization())
    model.add(Activation('relu'))
    model.add(Conv2D(filters, (3, 3), padding='same'))
    model.add(BatchNormalization())
    model.add(Activation('relu'))
    model.add(MaxPooling2D(pool_size=(2, 2)))
    model.add(Dropout(0.25))


model = Sequential()
conv_block(model, 64, first=True)
conv_block(model, 128)
conv_block(model, 256)
model.add(Flatten())
model.add(Dense(512))
model.add(Activation('relu'))
model.add(Dropout(0.5))
model.add(Dense(num_classes))
model.add(Activation('softmax'))

# Horovod: adjust learning rate based on number of GPUs.
opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
# Horovod: add Horovod Distributed Optimizer.
opt = hvd.DistributedOptimizer(opt)

model.compile(loss='categorical_crossentropy', optimizer=opt, metrics=['accuracy'])

callbacks = [
    # Horovod: broadcast initial variable states from rank 0 to all other processes.
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
]
# Horovod: save checkpoints only on worker 0
if hvd.rank() == 0:
    if not os.path.isdir(args.save_dir):
        os.makedirs(args.save_dir)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.save_dir, 'checkpoint-{epoch}.h5')))

datagen = ImageDataGenerator(
    width_shift_range=0.1,
    height_shift_range=0.1,
    horizontal_flip=True)
datagen.fit(x_train)

model.fit(datagen.flow(x_train, y_train, batch_size=args.batch_size),
          steps_per_epoch=x_train.shape[0] // args.batch_size,
          epochs=args.epochs,
          validation_data=(x_test, y_test),
          callbacks=callbacks,
          workers=4,
          verbose=1 if hvd.rank() == 0 else 0)

# Save model and weights
if hvd.rank() == 0:
    model_path = os.path.join(args.save_dir, args.model_name)
    model.save(model_path)
    print('Saved trained model at %s ' % model_path)

# Score trained model.
scores = model.evaluate(x_test, y_test, verbose=0)
if hvd.rank() == 0:
    print('Test loss:', scores[0])
    print('Test accuracy:', scores[1])
