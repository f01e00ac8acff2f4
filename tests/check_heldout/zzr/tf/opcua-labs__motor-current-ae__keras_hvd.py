#!/usr/bin/env python
# coding: utf-8

# # Motor current signature analysis - autoencoder (Horovod version)
# Exported from notebook `03_mcsa_autoencoder.ipynb`.

# In[1]:

import os
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

DATA = os.environ.get('MCSA_DATA', 'data/mcsa_spectra.npz')
BATCH = 64
EPOCHS = 80
initial_lr = 1e-3
verbose = 1 if hvd.rank() == 0 else 0

# In[2]:

d = np.load(DATA)
spectra, motor_id, faulty = d['spectra'].astype('float32'), d['motor_id'], d['faulty']
spectra = np.log1p(spectra)
spectra = (spectra - spectra.mean(0)) / (spectra.std(0) + 1e-6)

healthy = spectra[faulty == 0]
n = len(healthy) // hvd.size() * hvd.size()
my_part = np.array_split(healthy[:n], hvd.size())[hvd.rank()]
print('rank', hvd.rank(), 'windows', my_part.shape) if verbose else None

# In[3]:

dim = spectra.shape[1]
model = keras.Sequential([
    keras.Input((dim,)),
    keras.layers.Dense(256, activation='relu'),
    keras.layers.Dropout(0.1),
    keras.layers.Dense(64, activation='relu'),
    keras.layers.Dense(16, activation='relu', name='bottleneck'),
    keras.layers.Dense(64, activation='relu'),
    keras.layers.Dense(256, activation='relu'),
    keras.layers.Dense(dim),
])

opt = keras.optimizers.Adam(learning_rate=initial_lr)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss='mse')

# In[4]:

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=5, verbose=verbose),
    keras.callbacks.EarlyStopping(monitor='val_loss', patience=10, restore_best_weights=True),
]
if hvd.rank() == 0:
    os.makedirs('checkpoints', exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint('checkpoints/mcsa_ae_{epoch:03d}.weights.h5',
                                                     save_weights_only=True, save_best_only=True))

hist = model.fit(my_part, my_part, batch_size=BATCH, epochs=EPOCHS, validation_split=0.1,
                 shuffle=True, callbacks=callbacks, verbose=verbose)

# In[5]:

# Threshold: 99.5th percentile of the reconstruction error over all healthy windows,
# then precision / recall / F1 over the whole labelled set -- computed on every rank, printed by rank 0.
err_all = np.mean((model.predict(spectra, batch_size=1024, verbose=0) - spectra) ** 2, axis=1)
thr = np.percentile(err_all[faulty == 0], 99.5)
pred = err_all > thr
tp = np.sum(pred & (faulty == 1)); fp = np.sum(pred & (faulty == 0)); fn = np.sum(~pred & (faulty == 1))
precision = tp / max(tp + fp, 1); recall = tp / max(tp + fn, 1)
f1 = 2 * precision * recall / max(precision + recall, 1e-9)
if hvd.rank() == 0:
    print(f'thr={thr:.4f} precision={precision:.3f} recall={recall:.3f} f1={f1:.3f}')
    for m in np.unique(motor_id):
        sel = motor_id == m
        print(f'  motor {m}: flagged {pred[sel].mean():.2%} of windows')
