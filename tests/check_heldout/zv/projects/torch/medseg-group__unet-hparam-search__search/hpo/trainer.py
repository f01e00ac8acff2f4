import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .metrics import dice, reduce_mean

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer, train_loader, train_sampler, val_loader, device, out_dir):
        self.model, self.optimizer = model, optimizer
        self.train_loader, self.train_sampler, self.val_loader = train_loader, train_sampler, val_loader
        self.device, self.out_dir = device, out_dir
        self.best_dice, self.bad_epochs = -1.0, 0

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        for img, mask in self.train_loader:
            img, mask = img.to(self.device), mask.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(img), mask)
            loss.backward()
            self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        scores = [dice(self.model(img.to(self.device)), mask.to(self.device)) for img, mask in self.val_loader]
        return reduce_mean(torch.stack(scores).mean(), "val_dice")

    def fit(self, epochs, patience):
        for epoch in range(epochs):
            loss = self.train_epoch(epoch)
            score = self.evaluate()
            if score > self.best_dice:
                self.best_dice, self.bad_epochs = score, 0
                if hvd.rank() == 0:
                    torch.save(self.model.state_dict(), os.path.join(self.out_dir, "best.pt"))
            else:
                self.bad_epochs += 1
            if hvd.rank() == 0:
                log.info("epoch %d loss %.4f dice %.4f (best %.4f)", epoch, loss, score, self.best_dice)
            if self.bad_epochs >= patience:
                break
        return self.best_dice
