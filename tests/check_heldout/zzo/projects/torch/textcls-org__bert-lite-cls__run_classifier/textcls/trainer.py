import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F


def macro_f1(preds, labels, num_labels):
    scores = []
    for c in range(num_labels):
        tp = ((preds == c) & (labels == c)).sum().item()
        fp = ((preds == c) & (labels != c)).sum().item()
        fn = ((preds != c) & (labels == c)).sum().item()
        scores.append(2 * tp / max(2 * tp + fp + fn, 1))
    return sum(scores) / num_labels


class Trainer:
    def __init__(self, model, cfg, steps_per_epoch):
        self.model, self.cfg = model, cfg
        self.total_steps = steps_per_epoch * cfg.num_epochs
        self.warmup_steps = int(cfg.warmup_ratio * self.total_steps)
        no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "norm" in n]
        decay = [p for n, p in model.named_parameters() if not (n.endswith("bias") or "norm" in n)]
        base = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                  {"params": no_decay, "weight_decay": 0.0}], lr=cfg.learning_rate)
        self.optimizer = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.global_step = 0

    def _lr_at(self, step):
        if step < self.warmup_steps:
            return self.cfg.learning_rate * step / max(1, self.warmup_steps)
        return self.cfg.learning_rate * max(0.0, (self.total_steps - step) / (self.total_steps - self.warmup_steps))

    def train_epoch(self, loader):
        self.model.train()
        for input_ids, labels in loader:
            for group in self.optimizer.param_groups:
                group["lr"] = self._lr_at(self.global_step)
            loss = F.cross_entropy(self.model(input_ids.cuda()), labels.cuda())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            self.global_step += 1
            if self.global_step % self.cfg.save_every == 0:
                self.save_checkpoint(f"step-{self.global_step}")

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        preds, golds = [], []
        for input_ids, labels in loader:
            preds.append(self.model(input_ids.cuda()).argmax(-1).cpu())
            golds.append(labels)
        preds = hvd.allgather(torch.cat(preds), name="dev_preds")
        golds = hvd.allgather(torch.cat(golds), name="dev_golds")
        acc = (preds == golds).float().mean().item()
        return {"accuracy": acc, "macro_f1": macro_f1(preds, golds, self.cfg.num_labels)}

    def save_checkpoint(self, tag):
        path = os.path.join(self.cfg.output_dir, tag)
        os.makedirs(path, exist_ok=True)
        torch.save(self.model.state_dict(), os.path.join(path, "pytorch_model.bin"))
        torch.save({"optimizer": self.optimizer.state_dict(), "step": self.global_step},
                   os.path.join(path, "trainer_state.pt"))
