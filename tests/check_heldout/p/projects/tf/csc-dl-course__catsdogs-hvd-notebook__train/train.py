#!/usr/bin/env python
# coding: utf-8

# # Dogs vs. cats with Horovod (exercise 5, multi-GPU version)
# Exported from `tf2-dvc-cnn-hvd.ipynb`; run as a batch job with
# `srun python3 train.py` (one task per GPU).

# In[1]:


import os
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from data import ImageSequence, list_images
from utils import build_cnn, print_rank0

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
print_rank0(hvd.rank(), "Horovod workers:", hvd.size(), "TF", tf.__version__)


# In[2]:


DATADIR = os.environ.get("DATADIR", "/scratch/project_2005299/data/dogs-vs-cats")
BATCH_SIZE = 32
EPOCHS = 20
BASE_LR = 1e-4

train_items = list_images(os.path.join(DATADIR, "train"))
val_items = list_images(os.path.join(DATADIR, "validation"))
train_seq = ImageSequence(train_items, BATCH_SIZE, hvd.size(), hvd.rank(), augment=True)
val_seq = ImageSequence(val_items, BATCH_SIZE, hvd.size(), hvd.rank())
print_rank0(hvd.rank(), "batches per worker:", len(train_seq), "train /", len(val_seq), "val")


# In[3]:


model = build_cnn()
scaled_lr = BASE_LR * hvd.size()
opt = keras.optimizers.RMSprop(learning_rate=scaled_lr)
opt = hvd.DistributedOptimizer(opt)
model.compile(loss="binary_crossentropy", optimizer=opt, metrics=["accuracy"])
if hvd.rank() == 0:
    model.summary()


# In[4]:


callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=3,
                                             verbose=1 if hvd.rank() == 0 else 0),
]
if hvd.rank() == 0:
    os.makedirs("checkpoints", exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint("checkpoints/dvc-{epoch:02d}.keras"))
    callbacks.append(keras.callbacks.CSVLogger("history.csv"))


# In[5]:


history = model.fit(train_seq, epochs=EPOCHS, validation_data=val_seq,
                    callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


# In[6]:


# every worker evaluated its own validation slice (same number of batches everywhere)
loss, acc = model.evaluate(val_seq, verbose=0)
acc = hvd.allreduce(np.float32(acc), name="final_val_acc").numpy()
loss = hvd.allreduce(np.float32(loss), name="final_val_loss").numpy()
print_rank0(hvd.rank(), f"final validation: loss {loss:.4f}  accuracy {acc:.4f}")
