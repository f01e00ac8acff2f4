import time

import numpy as np
import torch

from .dist_utils import log, sum_tensor

IGNORE = 255


def poly_lr(base_lr, it, max_it, power=0.9):
    return base_lr * (1 - it / max_it) ** power


class ConfusionMatrix:
    def __init__(self, n):
        self.n = n
        self.mat = torch.zeros(n, n, dtype=torch.int64)

    def update(self, pred, target):
        k = (target >= 0) & (target < self.n)
        idx = self.n * target[k].view(-1) + pred[k].view(-1)
        self.mat += torch.bincount(idx, minlength=self.n ** 2).view(self.n, self.n)

    def reduce_(self):
        # pixels counted on every worker's shard of val
        self.mat = sum_tensor(self.mat, "confmat")
        return self

    def miou(self):
        m = self.mat.double()
        iou = m.diag() / (m.sum(0) + m.sum(1) - m.diag()).clamp(min=1)
        return iou.mean().item(), iou.tolist()


class SegTrainer:
    def __init__(self, model, optimizer, opts, device, iters_per_epoch, lr):
        self.model = model
        self.optimizer = optimizer
        self.opts = opts
        self.device = device
        self.lr = lr
        self.max_iter = opts.epochs * iters_per_epoch
        self.cur_iter = 0
        self.criterion = torch.nn.CrossEntropyLoss(ignore_index=IGNORE)

    def train_epoch(self, loader, sampler, epoch):
        self.model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (img, lbl) in enumerate(loader):
            img, lbl = img.to(self.device, non_blocking=True), lbl.to(self.device, non_blocking=True)
            lr = poly_lr(self.lr, self.cur_iter, self.max_iter, self.opts.power)
            for g in self.optimizer.param_groups:
                g["lr"] = lr
            loss = self.criterion(self.model(img), lbl)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.cur_iter += 1
            if i % 20 == 0:
                log(f"ep {epoch} it {i}/{len(loader)} loss {loss.item():.4f} lr {lr:.5f} ({time.time() - t0:.1f}s)")

    @torch.no_grad()
    def sliding_predict(self, img, crop, stride_rate=2 / 3):
        n, _, h, w = img.shape
        stride = int(crop * stride_rate)
        logits = torch.zeros(n, self.opts.num_classes, h, w, device=img.device)
        count = torch.zeros(n, 1, h, w, device=img.device)
        rows = max(int(np.ceil((h - crop) / stride)) + 1, 1)
        cols = max(int(np.ceil((w - crop) / stride)) + 1, 1)
        for r in range(rows):
            for c in range(cols):
                y1, x1 = min(r * stride, max(h - crop, 0)), min(c * stride, max(w - crop, 0))
                y2, x2 = min(y1 + crop, h), min(x1 + crop, w)
                logits[:, :, y1:y2, x1:x2] += self.model(img[:, :, y1:y2, x1:x2])
                count[:, :, y1:y2, x1:x2] += 1
        return logits / count

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        cm = ConfusionMatrix(self.opts.num_classes)
        for img, lbl in loader:
            img = img.to(self.device)
            out = self.sliding_predict(img, self.opts.crop_size) if self.opts.sliding else self.model(img)
            cm.update(out.argmax(1).cpu(), lbl)
        cm.reduce_()
        return cm.miou()
