import logging

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from ..data import build_train_loader, build_val_loader
from .hooks import CheckpointHook, LoggerHook

logger = logging.getLogger('pcbcls')


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device(cfg.device if torch.cuda.is_available() else 'cpu')
        self.model = self.build_model().to(self.device)
        self.train_loader, self.train_sampler = build_train_loader(cfg)
        self.val_loader = build_val_loader(cfg)
        base = torch.optim.SGD(self.model.parameters(), lr=cfg.base_lr * hvd.size(),
                               momentum=cfg.momentum, weight_decay=cfg.weight_decay)
        compression = hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none
        self.optimizer = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters(),
                                                  compression=compression)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, cfg.milestones, 0.1)
        self.start_epoch = 0
        if cfg.resume and hvd.rank() == 0:
            state = torch.load(cfg.resume, map_location='cpu')
            self.model.load_state_dict(state['model'])
            self.start_epoch = state['epoch'] + 1
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.hooks = [LoggerHook(cfg.log_every), CheckpointHook(cfg.output_dir)]

    def build_model(self):
        weights = 'IMAGENET1K_V1' if self.cfg.pretrained else None
        model = torchvision.models.__dict__[self.cfg.arch](weights=weights)
        model.fc = torch.nn.Linear(model.fc.in_features, self.cfg.num_classes)
        return model

    def train(self):
        for epoch in range(self.start_epoch, self.cfg.epochs):
            if self.train_sampler is not None:
                self.train_sampler.set_epoch(epoch)
            self.model.train()
            for it, (images, labels) in enumerate(self.train_loader):
                images, labels = images.to(self.device), labels.to(self.device)
                loss = F.cross_entropy(self.model(images), labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                for h in self.hooks:
                    if hasattr(h, 'after_iter'):
                        h.after_iter(self, epoch, it, loss.item())
            self.scheduler.step()
            metrics = self.evaluate()
            if hvd.rank() == 0:
                logger.info('epoch %d val acc %.4f', epoch, metrics['acc'])
            for h in self.hooks:
                if hasattr(h, 'after_epoch'):
                    h.after_epoch(self, epoch, metrics)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct, total = 0, 0
        for images, labels in self.val_loader:
            images, labels = images.to(self.device), labels.to(self.device)
            correct += (self.model(images).argmax(1) == labels).sum().item()
            total += labels.numel()
        return {'acc': correct / max(total, 1)}
