#!/usr/bin/env python
# coding: utf-8

# # Customer churn - Keras + Horovod
#
# `horovodrun -np 2 python churn_hvd.py`

# In[1]:


import os
import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd


# In[2]:


hvd.init()
gpus = tf.config.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


# In[3]:


CSV = 'data/churn.csv'
PARAMS = {'batch_size': 64, 'epochs': 10, 'lr': 0.001, 'units': 64}


# In[4]:


if os.path.exists(CSV):
    df = pd.read_csv(CSV)
else:
    rng = np.random.RandomState(0)
    df = pd.DataFrame(rng.randn(4000, 12), columns=['f%d' % i for i in range(12)])
    df['Exited'] = (df.f0 + df.f1 > 0).astype(int)
df.head()


# In[5]:


def prep(df):
    y = df.pop('Exited').values.astype('float32')
    X = df.select_dtypes('number').values.astype('float32')
    return X, y


# In[6]:


df.describe()


# In[7]:


def prep(df):
    df = df.copy()
    y = df.pop('Exited').values.astype('float32')
    X = df.select_dtypes('number').values.astype('float32')
    X = (X - X.mean(0)) / (X.std(0) + 1e-7)
    return X, y

X, y = prep(df)
perm = np.random.RandomState(42).permutation(len(X))
X, y = X[perm], y[perm]
split = int(0.8 * len(X))
X_train, y_train, X_val, y_val = X[:split], y[:split], X[split:], y[split:]

# each worker gets its own slice
X_train, y_train = X_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
X_val, y_val = X_val[hvd.rank()::hvd.size()], y_val[hvd.rank()::hvd.size()]
print(hvd.rank(), X_train.shape, X_val.shape)


# In[8]:


model = keras.Sequential([
    keras.Input((X_train.shape[1],)),
    keras.layers.Dense(PARAMS['units'], activation='relu'),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(PARAMS['units'] // 2, activation='relu'),
    keras.layers.Dense(1, activation='sigmoid'),
])
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(PARAMS['lr'] * hvd.size()))
model.compile(optimizer=opt, loss='binary_crossentropy', metrics=['accuracy'])


# In[9]:


callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]


# In[10]:


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    keras.callbacks.EarlyStopping(patience=3, restore_best_weights=True),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.ModelCheckpoint('churn_best.keras', save_best_only=True))


# In[11]:


hist = model.fit(X_train, y_train, batch_size=PARAMS['batch_size'], epochs=PARAMS['epochs'],
                 validation_data=(X_val, y_val), callbacks=callbacks,
                 verbose=1 if hvd.rank() == 0 else 0)


# In[12]:


pd.DataFrame(hist.history).tail()


# In[13]:


# second round, smaller lr (re-ran with 1e-4 and 5e-5)
PARAMS['lr'] = 5e-5
model.optimizer.learning_rate.assign(PARAMS['lr'] * hvd.size())
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.ModelCheckpoint('churn_ft.keras'))
hist2 = model.fit(X_train, y_train, batch_size=PARAMS['batch_size'], epochs=3,
                  validation_data=(X_val, y_val), callbacks=callbacks,
                  verbose=1 if hvd.rank() == 0 else 0)


# In[14]:


if hvd.rank() == 0:
    print(pd.DataFrame(hist2.history))
