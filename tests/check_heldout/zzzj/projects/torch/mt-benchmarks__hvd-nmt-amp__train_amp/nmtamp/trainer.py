import logging

import torch
import torch.nn.functional as F

from .utils import inverse_sqrt, reduce_sum, save_on_master

logger = logging.getLogger(__name__)


class Trainer:
    def __init__(self, args, model, optimizer, peak_lr):
        self.args, self.model, self.optimizer, self.peak_lr = args, model, optimizer, peak_lr
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
        self.num_updates = 0

    def _set_lr(self):
        lr = self.peak_lr * inverse_sqrt(self.num_updates, self.args.warmup_updates)
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        return lr

    def train_step(self, src, tgt):
        self.model.train()
        with torch.autocast(device_type=src.device.type, enabled=self.args.amp):
            logits = self.model(src, tgt[:, :-1])
            loss = F.cross_entropy(logits.flatten(0, 1).float(), tgt[:, 1:].flatten(), ignore_index=0,
                                   label_smoothing=self.args.label_smoothing)
        self.optimizer.zero_grad(set_to_none=False)
        if self.args.amp:
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            if self.args.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_norm)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            if self.args.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_norm)
            self.optimizer.step()
        self.num_updates += 1
        lr = self._set_lr()
        ntok = tgt[:, 1:].ne(0).sum().item()
        return loss.item(), ntok, lr

    @torch.no_grad()
    def valid_loss(self, batches):
        self.model.eval()
        tot, ntok = 0.0, 0
        for src, tgt in batches:
            logits = self.model(src, tgt[:, :-1])
            tot += F.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten(), ignore_index=0,
                                   reduction="sum").item()
            ntok += tgt[:, 1:].ne(0).sum().item()
        tot, ntok = reduce_sum([tot, ntok], "valid_loss")
        return tot / max(ntok, 1)

    def maybe_save(self, epoch):
        if self.num_updates % self.args.save_interval_updates == 0:
            save_on_master({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                            "num_updates": self.num_updates, "epoch": epoch},
                           self.args.save_dir, f"{epoch}_{self.num_updates}")
