#!/usr/bin/env python
# coding: utf-8

# # Galaxy Zoo - CNN regression of the 37 vote fractions (horovod)

# In[1]:


import math
import horovod.tensorflow as hvd

from gzoo import opts as opts_mod
from gzoo.dist import start
from gzoo.pipeline import dataset
from gzoo.net import make_net
from gzoo.trainer import GZTrainer


# In[2]:


opts = opts_mod.parse()
rank, size = start()


# In[3]:


train_it = iter(dataset(opts, rank, size, training=True))
val_it = iter(dataset(opts, rank, size, training=False))
VAL_STEPS = 2


# In[4]:


model = make_net(opts.img)
trainer = GZTrainer(model, opts.lr)


# In[5]:


for epoch in range(opts.epochs):
    tr = trainer.train_epoch(train_it, opts.steps)
    va = trainer.validate(val_it, VAL_STEPS)
    if rank == 0:
        print("epoch %d  train_mse %.5f  val_rmse %.5f" % (epoch, tr, math.sqrt(va)))
    trainer.save(opts.out, "epoch_%03d" % epoch)


# In[6]:


# fine-tune at lower lr (the cell I kept re-running)
trainer.opt.learning_rate.assign(opts.ft_lr)
for epoch in range(opts.ft_epochs):
    tr = trainer.train_epoch(train_it, opts.steps)
    va = trainer.validate(val_it, VAL_STEPS)
    if rank == 0:
        print("ft %d  train_mse %.5f  val_rmse %.5f" % (epoch, tr, math.sqrt(va)))
trainer.save(opts.out, "final")


# In[7]:


rank, size
