import glob
import math
import os
from collections import Counter

import horovod.torch as hvd
import torch
import torch.nn.functional as F


def inverse_sqrt(warmup):
    return lambda step: min((step + 1) / warmup, math.sqrt(warmup / (step + 1)))


def ngram_stats(hyp, ref, max_n=4):
    stats = [len(hyp), len(ref)]
    for n in range(1, max_n + 1):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        stats += [sum((h & r).values()), max(len(hyp) - n + 1, 0)]
    return stats


def bleu_from_stats(s):
    hyp_len, ref_len = s[0], s[1]
    if min(s[2:]) == 0:
        return 0.0
    log_p = sum(math.log(s[2 + 2 * k] / s[3 + 2 * k]) for k in range(4)) / 4
    bp = min(0.0, 1 - ref_len / hyp_len)
    return 100 * math.exp(log_p + bp)


class Trainer:
    def __init__(self, model, optimizer, scheduler, tgt_vocab, cfg):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.tgt_vocab, self.cfg = tgt_vocab, cfg
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)
        self.step = 0

    def train_epoch(self, loader):
        self.model.train()
        for src, tgt in loader:
            src, tgt = src.cuda(), tgt.cuda()
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.cfg.amp):
                logits = self.model(src, tgt[:, :-1])
                loss = F.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten(),
                                       ignore_index=0, label_smoothing=self.cfg.label_smoothing)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            self.step += 1
            if self.step % self.cfg.log_every == 0 and hvd.rank() == 0:
                print(f"step {self.step} loss {loss.item():.3f} lr {self.scheduler.get_last_lr()[0]:.2e}")

    def evaluate(self, loader):
        self.model.eval()
        stats = torch.zeros(10, dtype=torch.float64)
        for src, tgt in loader:
            hyps = self.model.greedy(src.cuda(), max_len=tgt.size(1) + 10).cpu()
            for h, r in zip(hyps.tolist(), tgt.tolist()):
                stats += torch.tensor(ngram_stats(self.tgt_vocab.decode(h), self.tgt_vocab.decode(r[1:])),
                                      dtype=torch.float64)
        stats = hvd.allreduce(stats, op=hvd.Sum, name="bleu_stats")
        return bleu_from_stats(stats.tolist())

    def save(self, ckpt_dir, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(ckpt_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "epoch": epoch, "step": self.step},
                   os.path.join(ckpt_dir, f"checkpoint{epoch:03d}.pt"))


def average_last(ckpt_dir, n):
    paths = sorted(glob.glob(os.path.join(ckpt_dir, "checkpoint*.pt")))[-n:]
    avg = None
    for p in paths:
        state = torch.load(p, map_location="cpu")["model"]
        if avg is None:
            avg = {k: v.clone().double() for k, v in state.items()}
        else:
            for k in avg:
                avg[k] += state[k].double()
    return {k: (v / len(paths)).to(state[k].dtype) for k, v in avg.items()}
