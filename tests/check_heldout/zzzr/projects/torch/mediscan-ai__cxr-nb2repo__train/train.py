#!/usr/bin/env python
# coding: utf-8
# In[ ]:
# originally cxr_densenet_hvd.ipynb -> nbconvert -> moved the cells into cxr/


import torchvision

from cxr import parse_opts
from cxr import dist_utils
from cxr.data import build_loaders
from cxr.engine import Trainer
from cxr import checkpoint


# In[ ]:


opt = parse_opts()
device = dist_utils.init()


# In[ ]:


def build_model(n_classes):
    m = torchvision.models.densenet121(weights=None)
    m.classifier = torch.nn.Linear(m.classifier.in_features, n_classes)
    return m


# In[ ]:


import torch

def build_model(n_classes):
    # densenet was too slow on the small GPUs, resnet18 instead
    m = torchvision.models.resnet18(weights=None)
    m.fc = torch.nn.Linear(m.fc.in_features, n_classes)
    return m


# In[ ]:


train_loader, val_loader, train_sampler = build_loaders(opt)
trainer = Trainer(build_model(opt.n_classes), opt, device)


# In[ ]:


best = float("inf")
for epoch in range(opt.epochs):
    train_sampler.set_epoch(epoch)
    tr = trainer.train_one_epoch(train_loader)
    va = trainer.validate(val_loader)
    if dist_utils.master():
        print(f"epoch {epoch} train_loss {tr:.4f} val_loss {va:.4f}")
    checkpoint.save(trainer.model, trainer.optimizer, epoch, opt)
    if va < best:
        best = va
        checkpoint.save(trainer.model, trainer.optimizer, epoch, opt, name="best.pth")
