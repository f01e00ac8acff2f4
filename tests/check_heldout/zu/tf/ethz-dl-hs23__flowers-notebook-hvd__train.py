#!/usr/bin/env python
# coding: utf-8
# Exported from flowers_hvd.ipynb (DL HS23 exercise 7, bonus)

# In[1]:


import os

import keras
import horovod.tensorflow.keras as hvd

from flowers import CLASS_NAMES
from flowers.distributed import agree_on_int, average_list, setup
from flowers.history import last_logged_epoch, plot
from flowers.model_zoo import small_convnet
from flowers.pipeline import count, flowers_ds


# In[2]:


DATA = "data/flower_photos"
BATCH = 32
LR = 1e-3
EPOCHS = 15
WARMUP = 3
OUT = "runs/ex7"
CKPT = os.path.join(OUT, "flowers.weights.h5")
LOG = os.path.join(OUT, "log.csv")


# In[3]:


rank, size = setup()
train_ds = flowers_ds(f"{DATA}/train/*/*.jpg", BATCH, size, rank, training=True)
val_ds = flowers_ds(f"{DATA}/val/*/*.jpg", BATCH, size, rank, training=False)
steps = count(f"{DATA}/train/*/*.jpg") // (BATCH * size)
val_steps = max(1, count(f"{DATA}/val/*/*.jpg") // (BATCH * size))  # same number of batches on every worker


# In[4]:


model = small_convnet(len(CLASS_NAMES))
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(LR * size))
model.compile(opt, keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])


# In[5]:


start = 0
if rank == 0:
    os.makedirs(OUT, exist_ok=True)
    if os.path.exists(CKPT):
        model.load_weights(CKPT)
        start = last_logged_epoch(LOG)
start = agree_on_int(start, "start_epoch")


# In[6]:


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=LR * size, warmup_epochs=WARMUP,
                                             steps_per_epoch=steps),
]
if rank == 0:
    callbacks += [keras.callbacks.ModelCheckpoint(CKPT, save_weights_only=True),
                  keras.callbacks.CSVLogger(LOG, append=True)]
model.fit(train_ds, steps_per_epoch=steps, epochs=EPOCHS, initial_epoch=start,
          validation_data=val_ds, validation_steps=val_steps, callbacks=callbacks, verbose=2 if rank == 0 else 0)


# In[7]:


loss, acc = average_list(model.evaluate(val_ds, steps=val_steps, verbose=0), "final_eval")
if rank == 0:
    print(f"val loss {loss:.4f}  val acc {acc:.4f}")
    plot(LOG, os.path.join(OUT, "curves.png"))
