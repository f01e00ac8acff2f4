import time

import torch
import torch.nn as nn


class Engine:
    def __init__(self, model, optimizer, device, accum_steps=1, logger=None, log_interval=20):
        self.model, self.optimizer, self.device = model, optimizer, device
        self.accum_steps = accum_steps
        self.logger = logger
        self.log_interval = log_interval
        self.criterion = nn.CrossEntropyLoss()

    def train_one_epoch(self, loader, epoch):
        self.model.train()
        self.optimizer.zero_grad()
        t0 = time.time()
        for i, (x, y) in enumerate(loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            loss = self.criterion(self.model(x), y) / self.accum_steps
            loss.backward()
            if (i + 1) % self.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
            if self.logger and i % self.log_interval == 0:
                self.logger.info("epoch %d it %d loss %.4f (%.1fs)", epoch, i,
                                 loss.item() * self.accum_steps, time.time() - t0)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct, total = 0, 0
        for x, y in loader:
            pred = self.model(x.to(self.device)).argmax(1)
            correct += (pred.cpu() == y).sum().item()
            total += y.numel()
        return correct / max(total, 1)
