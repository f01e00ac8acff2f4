# Bidirectional LSTM sentiment model on IMDB, Keras + Horovod.
# Based on the keras imdb_bidirectional_lstm example; changes for horovod marked with "HVD".
from __future__ import print_function

import os
import sys
import json
import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.preprocessing import sequence
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense, Dropout, Embedding, LSTM, Bidirectional
import horovod.keras as hvd  # HVD

max_features = 20000
maxlen = 200
batch_size = 32
epochs = 8
if len(sys.argv) > 1:
    epochs = int(sys.argv[1])
if len(sys.argv) > 2:
    batch_size = int(sys.argv[2])

hvd.init()  # HVD
# HVD: one GPU per process
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

print('Loading data...')
(x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(num_words=max_features)
print(len(x_train), 'train sequences')
print(len(x_test), 'test sequences')

x_train = sequence.pad_sequences(x_train, maxlen=maxlen)
x_test = sequence.pad_sequences(x_test, maxlen=maxlen)
y_train = np.array(y_train)
y_test = np.array(y_test)

# HVD: each worker gets its own slice of the training set
x_train = x_train[hvd.rank()::hvd.size()]
y_train = y_train[hvd.rank()::hvd.size()]

model = Sequential()
model.add(Embedding(max_features, 128, input_length=maxlen))
model.add(Bidirectional(LSTM(64)))
model.add(Dropout(0.5))
model.add(Dense(1, activation='sigmoid'))

opt = keras.optimizers.Adam(learning_rate=1e-3)
opt = hvd.DistributedOptimizer(opt)  # HVD

model.compile(opt, 'binary_crossentropy', metrics=['accuracy'])

ckpt_dir = os.path.join(os.environ.get('SCRATCH', '.'), 'imdb_ckpt')
os.makedirs(ckpt_dir, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),  # HVD
    hvd.callbacks.MetricAverageCallback(),  # HVD
    keras.callbacks.EarlyStopping(monitor='val_loss', patience=2, restore_best_weights=True),
    keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, 'best.h5'), monitor='val_loss', save_best_only=True),
]

print('Train...')
t_start = time.time()
history = model.fit(x_train, y_train,
          batch_size=batch_size,
          epochs=epochs,
          validation_data=(x_test, y_test),
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

score, acc = model.evaluate(x_test, y_test, batch_size=batch_size, verbose=0)
if hvd.rank() == 0:
    print('Test score:', score)
    print('Test accuracy:', acc)
    print('Wall time: %.1f s on %d workers' % (time.time() - t_start, hvd.size()))
    with open(os.path.join(ckpt_dir, 'history.json'), 'w') as fh:
        json.dump({k: [float(v) for v in vals] for k, vals in history.history.items()}, fh, indent=1)
