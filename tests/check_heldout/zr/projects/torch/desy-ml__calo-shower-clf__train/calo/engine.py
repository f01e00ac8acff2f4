import time

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd


def weighted_auc(s, y, w):
    o = np.argsort(s)[::-1]
    y, w = y[o], w[o]
    tpr = np.concatenate([[0], np.cumsum(w * y)]) / max((w * y).sum(), 1e-12)
    fpr = np.concatenate([[0], np.cumsum(w * (1 - y))]) / max((w * (1 - y)).sum(), 1e-12)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2)


class Trainer:
    def __init__(self, model, optimizer, scheduler, device, log_every=50):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.device, self.log_every = device, log_every

    def train_epoch(self, stream, epoch):
        self.model.train()
        stream.set_epoch(epoch)
        t0 = time.time()
        for i, (x, y, w) in enumerate(stream):
            x, y, w = x.to(self.device), y.to(self.device), w.to(self.device)
            self.optimizer.zero_grad()
            loss = (F.binary_cross_entropy_with_logits(self.model(x), y, reduction="none") * w).mean()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            if i % self.log_every == 0 and hvd.rank() == 0:
                print(f"[{epoch}:{i}/{len(stream)}] loss={loss.item():.4f} "
                      f"lr={self.scheduler.get_last_lr()[0]:.2e} {time.time() - t0:.0f}s", flush=True)

    @torch.no_grad()
    def evaluate(self, stream):
        """Gather every rank's scores so the AUC is over the whole validation set."""
        self.model.eval()
        s, y, w = [], [], []
        for x, yy, ww in stream:
            s.append(torch.sigmoid(self.model(x.to(self.device))).cpu())
            y.append(yy)
            w.append(ww)
        s = hvd.allgather(torch.cat(s), name="val_scores").numpy()
        y = hvd.allgather(torch.cat(y), name="val_labels").numpy()
        w = hvd.allgather(torch.cat(w), name="val_weights").numpy()
        eps = 1e-7
        bce = -(w * (y * np.log(s + eps) + (1 - y) * np.log(1 - s + eps))).sum() / w.sum()
        return {"auc": weighted_auc(s, y, w), "bce": float(bce), "n": int(len(y))}
