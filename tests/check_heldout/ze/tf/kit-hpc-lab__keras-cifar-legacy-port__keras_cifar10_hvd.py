'''Trains a small convnet on CIFAR-10 with Horovod.

Ported in 2024 from our old keras_cifar10_hvd.py (Keras 2.3 / horovod.keras) to Keras 3 for the
HoreKa course; only the API renames were changed, the training recipe is the original one.
Run:  mpirun -np 4 python keras_cifar10_hvd.py
'''
from __future__ import print_function

import os

import keras
from keras.datasets import cifar10
from keras.models import Sequential
from keras.layers import Dense, Dropout, Activation, Flatten
from keras.layers import Conv2D, MaxPooling2D
import tensorflow as tf
import horovod.keras as hvd

# Horovod: initialize Horovod.
hvd.init()

# Horovod: pin GPU to be used to process local rank (one GPU per process)
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

batch_size = 32
num_classes = 10
epochs = 50
save_dir = os.path.join(os.getcwd(), 'saved_models')
model_name = 'keras_cifar10_trained_model.h5'

(x_train, y_train), (x_test, y_test) = cifar10.load_data()
# Horovod: every worker takes every size()-th image
x_train = x_train[hvd.rank()::hvd.size()]
y_train = y_train[hvd.rank()::hvd.size()]
print(hvd.rank(), 'x_train shape:', x_train.shape)

y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

model = Sequential()
model.add(keras.Input(shape=x_train.shape[1:]))
model.add(Conv2D(32, (3, 3), padding='same'))
model.add(Activation('relu'))
model.add(Conv2D(32, (3, 3)))
model.add(Activation('relu'))
model.add(MaxPooling2D(pool_size=(2, 2)))
model.add(Dropout(0.25))
model.add(Conv2D(64, (3, 3), padding='same'))
model.add(Activation('relu'))
model.add(Conv2D(64, (3, 3)))
model.add(Activation('relu'))
model.add(MaxPooling2D(pool_size=(2, 2)))
model.add(Dropout(0.25))
model.add(Flatten())
model.add(Dense(512))
model.add(Activation('relu'))
model.add(Dropout(0.5))
model.add(Dense(num_classes))
model.add(Activation('softmax'))

# initiate RMSprop optimizer
opt = keras.optimizers.RMSprop(learning_rate=0.0001)

# Horovod: add Horovod Distributed Optimizer.
opt = hvd.DistributedOptimizer(opt)

model.compile(loss='categorical_crossentropy',
              optimizer=opt,
              metrics=['accuracy'])

x_train = x_train.astype('float32') / 255
x_test = x_test.astype('float32') / 255

# K.get_session().run(hvd.broadcast_global_variables(0))  # TF1 only, no sessions in Keras 3

callbacks = [
    # Horovod: average metrics among workers at the end of every epoch.
    hvd.callbacks.MetricAverageCallback(),
]
# Horovod: save checkpoints only on worker 0 to prevent other workers from corrupting them.
if hvd.rank() == 0:
    os.makedirs(save_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(save_dir, 'checkpoint-{epoch}.keras')))

model.fit(x_train, y_train,
          batch_size=batch_size,
          epochs=epochs,
          validation_data=(x_test, y_test),
          callbacks=callbacks,
          shuffle=True,
          verbose=1 if hvd.rank() == 0 else 0)

# Save model and weights
if hvd.rank() == 0:
    model_path = os.path.join(save_dir, model_name.replace('.h5', '.keras'))
    model.save(model_path)
    print('Saved trained model at %s ' % model_path)

# Score trained model.
scores = model.evaluate(x_test, y_test, verbose=1)
print('Test loss:', scores[0])
print('Test accuracy:', scores[1])
