import os
import time

import torch
import horovod.torch as hvd

from .metrics import auroc, sensitivity_specificity


class Trainer:
    def __init__(self, model, optimizer, criterion, device, out_dir, log_every=100):
        self.model, self.optimizer, self.criterion = model, optimizer, criterion
        self.device, self.out_dir, self.log_every = device, out_dir, log_every
        self.best_auc = 0.0

    def log(self, msg):
        if hvd.rank() == 0:
            print(time.strftime("%H:%M:%S"), msg, flush=True)

    def train_epoch(self, loader, epoch):
        self.model.train()
        for i, (x, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            # keep the workers in sync: average the loss over all of them before backward
            loss = hvd.allreduce(loss, name="train_loss")
            loss.backward()
            self.optimizer.step()
            if i % self.log_every == 0:
                self.log(f"epoch {epoch} it {i}/{len(loader)} loss {loss.item():.4f}")

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        scores, labels = [], []
        for x, y in loader:
            prob = self.model(x.to(self.device)).softmax(1)[:, 1]
            scores.append(prob.cpu())
            labels.append(y)
        scores = hvd.allgather(torch.cat(scores), name="val_scores")
        labels = hvd.allgather(torch.cat(labels), name="val_labels")
        sens, spec = sensitivity_specificity(scores, labels)
        return {"auroc": auroc(scores, labels), "sens": sens, "spec": spec}

    def fit(self, train_loader, val_loader, sampler, epochs, scheduler=None):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            self.train_epoch(train_loader, epoch)
            if scheduler is not None:
                scheduler.step()
            m = self.evaluate(val_loader)
            self.log(f"epoch {epoch} val auroc {m['auroc']:.4f} sens {m['sens']:.3f} spec {m['spec']:.3f}")
            if hvd.rank() == 0 and m["auroc"] > self.best_auc:
                self.best_auc = m["auroc"]
                os.makedirs(self.out_dir, exist_ok=True)
                torch.save(self.model.state_dict(), os.path.join(self.out_dir, "best_auroc.pt"))
        return self.best_auc
