#!/usr/bin/env python
# coding: utf-8

# # Credit default - Keras MLP, Horovod version
# exported from credit_default_hvd.ipynb (jupyter nbconvert --to script)

# In[1]:


import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

CONFIG = {
    "csv": os.getenv("CREDIT_CSV", "data/credit_default_clean.csv"),
    "batch_size": 512,
    "lr": 1e-3,
    "epochs": 25,
    "warmup_epochs": 3,
    "val_frac": 0.2,
    "out": "models",
}
print(json.dumps(CONFIG, indent=1))


# In[2]:


hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


# In[3]:


def get_lr(base_lr):
    # linear scaling rule (Goyal et al.)
    return base_lr * hvd.size()

scaled_lr = get_lr(CONFIG["lr"])


# In[4]:


raw = np.loadtxt(CONFIG["csv"], delimiter=",", skiprows=1, dtype=np.float32)
X, y = raw[:, :-1], raw[:, -1:]
X = (X - X.mean(axis=0)) / (X.std(axis=0) + 1e-6)
n_val = int(len(X) * CONFIG["val_frac"])
x_val, y_val, x_train, y_train = X[:n_val], y[:n_val], X[n_val:], y[n_val:]

def make_ds(x, y, train):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    if train:
        ds = ds.shuffle(20000).repeat()
    return ds.batch(CONFIG["batch_size"]).prefetch(tf.data.AUTOTUNE)

train_ds = make_ds(x_train, y_train, train=True)
val_ds = make_ds(x_val, y_val, train=False)
steps_per_epoch = len(x_train) // (CONFIG["batch_size"] * hvd.size())


# In[5]:


model = keras.Sequential([
    keras.Input(shape=(X.shape[1],)),
    keras.layers.Dense(256, activation="relu"),
    keras.layers.BatchNormalization(),
    keras.layers.Dropout(0.3),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
opt = keras.optimizers.Adam(learning_rate=scaled_lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="binary_crossentropy",
              metrics=[keras.metrics.AUC(name="auc"), "accuracy"])


# In[6]:


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=CONFIG["warmup_epochs"], verbose=1),
    keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=4, restore_best_weights=True),
]
if hvd.rank() == 0:
    os.makedirs(CONFIG["out"], exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(CONFIG["out"], "credit_mlp.keras"),
                                                     monitor="val_auc", mode="max", save_best_only=True))


# In[7]:


hist = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=CONFIG["epochs"],
                 validation_data=val_ds, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


# In[8]:


if hvd.rank() == 0:
    print("best val_auc", max(hist.history["val_auc"]))
