# HPC assignment 3: data-parallel training of a small CNN on CIFAR-10 with Horovod
# run: mpirun -np $SLURM_NTASKS python 10_cifar10_cnn_string_adam.py
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers, models
import horovod.tensorflow.keras as hvd

BATCH_SIZE = 64
EPOCHS = 25

hvd.init()

gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

if hvd.rank() == 0:
    print("Running on", hvd.size(), "workers")
    sys.stdout.flush()

(train_images, train_labels), (test_images, test_labels) = tf.keras.datasets.cifar10.load_data()
train_images, test_images = train_images / 255.0, test_images / 255.0

model = models.Sequential()
model.add(layers.Conv2D(32, (3, 3), activation='relu', input_shape=(32, 32, 3)))
model.add(layers.MaxPooling2D((2, 2)))
model.add(layers.Conv2D(64, (3, 3), activation='relu'))
model.add(layers.MaxPooling2D((2, 2)))
model.add(layers.Conv2D(64, (3, 3), activation='relu'))
model.add(layers.Flatten())
model.add(layers.Dense(64, activation='relu'))
model.add(layers.Dense(10))

model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    callbacks.append(tf.keras.callbacks.ModelCheckpoint('./cifar_cnn_{epoch:02d}.h5'))

# each worker sees 1/size of the batches per epoch (fit shuffles differently on each rank)
steps = len(train_images) // (BATCH_SIZE * hvd.size())

start = time.time()
history = model.fit(train_images, train_labels,
                    batch_size=BATCH_SIZE,
                    steps_per_epoch=steps,
                    epochs=EPOCHS,
                    validation_data=(test_images, test_labels),
                    callbacks=callbacks,
                    verbose=1 if hvd.rank() == 0 else 0)
elapsed = time.time() - start

test_loss, test_acc = model.evaluate(test_images, test_labels, verbose=0)
if hvd.rank() == 0:
    print("time: %.1f s  (%.1f s/epoch)" % (elapsed, elapsed / EPOCHS))
    print("test accuracy:", test_acc)
    np.save("history_acc.npy", np.array(history.history['accuracy']))
