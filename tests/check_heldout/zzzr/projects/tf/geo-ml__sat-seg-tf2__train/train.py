#!/usr/bin/env python
# coding: utf-8

# In[1]:


import os
import time
import tensorflow as tf
import horovod.tensorflow as hvd

from satseg.flags import get_flags
from satseg.env import init_horovod
from satseg.data import load_tiles, make_dataset
from satseg.model import tiny_unet
from satseg.loop import SegLoop


# In[2]:


FLAGS = get_flags()
init_horovod()


# In[3]:


x, y = load_tiles(FLAGS.tiles, FLAGS.random_tiles, FLAGS.tile, FLAGS.n_classes)
n_val = max(len(x) // 10, hvd.size())
train_ds = make_dataset(x[n_val:], y[n_val:], FLAGS.batch_size, training=True)
val_ds = make_dataset(x[:n_val], y[:n_val], FLAGS.batch_size, training=False)
steps_per_epoch = (len(x) - n_val) // (FLAGS.batch_size * hvd.size())
x.shape, steps_per_epoch


# In[4]:


model = tiny_unet(FLAGS.tile, n_classes=FLAGS.n_classes)
opt = tf.keras.optimizers.Adam(FLAGS.lr * hvd.size())
loop = SegLoop(model, opt)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt_dir, max_to_keep=3)


# In[5]:


it = iter(train_ds)
for epoch in range(FLAGS.epochs):
    t0 = time.time()
    for step in range(steps_per_epoch):
        xb, yb = next(it)
        loss = loop.train_step(xb, yb, epoch == 0 and step == 0)
    val_loss = loop.evaluate(val_ds)
    if hvd.rank() == 0:
        print(f"epoch {epoch} loss {float(loss):.4f} val {val_loss:.4f} {time.time() - t0:.1f}s")
    manager.save(checkpoint_number=epoch)


# In[6]:


model.summary()
