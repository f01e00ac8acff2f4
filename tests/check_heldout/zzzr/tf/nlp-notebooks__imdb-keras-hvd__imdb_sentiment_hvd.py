#!/usr/bin/env python
# coding: utf-8

# # IMDB sentiment, Keras + Horovod
# exported from imdb_sentiment_hvd.ipynb

# In[1]:


# get_ipython().run_line_magic('matplotlib', 'inline')
import sys
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


# In[2]:


hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


# In[3]:


VOCAB = 20000
MAXLEN = 200
BATCH = 32
EPOCHS = 4
FAKE = '--fake' in sys.argv


# In[4]:


if FAKE:
    rng = np.random.RandomState(0)
    x_train = rng.randint(1, VOCAB, (512, MAXLEN)); y_train = rng.randint(0, 2, 512)
    x_val = rng.randint(1, VOCAB, (128, MAXLEN)); y_val = rng.randint(0, 2, 128)
else:
    (x_train, y_train), (x_val, y_val) = keras.datasets.imdb.load_data(
        num_words=VOCAB, path='imdb-%d.npz' % hvd.rank())
    x_train = keras.utils.pad_sequences(x_train, maxlen=MAXLEN)
    x_val = keras.utils.pad_sequences(x_val, maxlen=MAXLEN)
print(len(x_train), 'train sequences')


# In[5]:


inputs = keras.Input(shape=(None,), dtype='int32')
x = keras.layers.Embedding(VOCAB, 128)(inputs)
x = keras.layers.Bidirectional(keras.layers.LSTM(64, return_sequences=True))(x)
x = keras.layers.Bidirectional(keras.layers.LSTM(64))(x)
outputs = keras.layers.Dense(1, activation='sigmoid')(x)
model = keras.Model(inputs, outputs)
model.summary()


# In[6]:


opt = keras.optimizers.Adam(learning_rate=0.001 * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss='binary_crossentropy', metrics=['accuracy'])


# In[7]:


callbacks = [
    hvd.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.ModelCheckpoint('./imdb-{epoch}.keras'))


# In[8]:


model.fit(x_train, y_train, batch_size=BATCH, epochs=EPOCHS,
          validation_data=(x_val, y_val), callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)


# In[9]:


if hvd.rank() == 0:
    print(model.evaluate(x_val, y_val, verbose=0))
