#!/usr/bin/env python
# coding: utf-8

# # Flowers - transfer learning, horovod
# exported with nbconvert, helpers now live in flowers/

# In[1]:


import keras
import horovod.tensorflow.keras as hvd

from flowers import settings, hvd_setup, data, model as model_lib
from flowers.callbacks import make_callbacks


# In[2]:


cfg = settings.parse()
rank, size = hvd_setup.setup()
print(f"rank {rank}/{size}")


# In[3]:


train_ds, val_ds = data.train_val(cfg)


# In[4]:


model, base = model_lib.build(cfg.img_size)
if rank == 0:
    model.summary()


# In[5]:


opt = keras.optimizers.Adam(cfg.lr * size)
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])


# In[6]:


history = model.fit(train_ds, validation_data=val_ds, epochs=cfg.epochs,
                    callbacks=make_callbacks(cfg.ckpt), verbose=2 if rank == 0 else 0)


# In[7]:


history.history.keys()


# In[8]:


# fine tune: unfreeze the base, recompile with a much smaller lr, new callbacks
base.trainable = True
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(cfg.ft_lr * size))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
history_ft = model.fit(train_ds, validation_data=val_ds, epochs=cfg.epochs + cfg.ft_epochs,
                       initial_epoch=cfg.epochs, callbacks=make_callbacks(cfg.ckpt),
                       verbose=2 if rank == 0 else 0)


# In[9]:


if rank == 0:
    print("final val acc", history_ft.history["val_accuracy"][-1])
