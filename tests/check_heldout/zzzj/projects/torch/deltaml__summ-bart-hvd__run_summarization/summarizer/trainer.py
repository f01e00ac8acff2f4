import logging
import os
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .rouge import rouge_l

log = logging.getLogger(__name__)


@dataclass
class TrainingArguments:
    output_dir: str = "runs/summ"
    num_train_epochs: int = 10
    per_device_batch_size: int = 16
    learning_rate: float = 3e-4
    warmup_updates: int = 1000
    label_smoothing: float = 0.1
    max_gen_len: int = 96
    save_every: int = 1


class Trainer:
    def __init__(self, model, optimizer, args, vocab, train_loader, eval_loader, device, is_main=True):
        self.model, self.optimizer, self.args = model, optimizer, args
        self.vocab, self.device, self.is_main = vocab, device, is_main
        self.train_loader, self.eval_loader = train_loader, eval_loader
        self.updates = 0

    def _lr(self):
        n = max(self.updates, 1)
        w = self.args.warmup_updates
        return self.args.learning_rate * min(n / w, (w / n) ** 0.5)

    def train_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        for src, tgt, _ in self.train_loader:
            src, tgt = src.to(self.device), tgt.to(self.device)
            logits = self.model(src, tgt[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), tgt[:, 1:], ignore_index=0,
                                   label_smoothing=self.args.label_smoothing)
            self.optimizer.zero_grad()
            loss.backward()
            self.updates += 1
            for g in self.optimizer.param_groups:
                g["lr"] = self._lr()
            self.optimizer.step()
            if self.is_main and self.updates % 200 == 0:
                log.info("epoch %d update %d loss %.4f", epoch, self.updates, loss.item())

    def evaluate(self):
        self.model.eval()
        scores = []
        for src, _, refs in self.eval_loader:
            hyps = self.model.generate(src.to(self.device), max_len=self.args.max_gen_len)
            for h, r in zip(hyps.tolist(), refs):
                scores.append(rouge_l(self.vocab.decode(h), r))
        self.model.train()
        return {"rougeL": 100.0 * sum(scores) / max(len(scores), 1)}

    def save(self, epoch):
        os.makedirs(self.args.output_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "updates": self.updates, "epoch": epoch},
                   os.path.join(self.args.output_dir, "last.pt"))

    def train(self, start_epoch=0):
        for epoch in range(start_epoch, self.args.num_train_epochs):
            self.train_epoch(epoch)
            metrics = self.evaluate()
            if self.is_main:
                log.info("epoch %d | eval %s", epoch, metrics)
            if (epoch + 1) % self.args.save_every == 0:
                self.save(epoch)
