import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


class NoteClassifier(nn.Module):
    def __init__(self, vocab_size, num_labels, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden, padding_idx=0)
        layer = nn.TransformerEncoderLayer(hidden, 4, 4 * hidden, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.classifier = nn.Sequential(nn.Dropout(0.1), nn.Linear(hidden, num_labels))

    def forward(self, input_ids):
        mask = input_ids == 0
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=mask)
        h = h.masked_fill(mask[..., None], 0.0).sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return self.classifier(h)


class Trainer:
    """Discriminative fine-tuning: small lr for the encoder, large lr for the fresh head."""

    def __init__(self, model, cfg, train_loader, eval_loader, device):
        self.model, self.cfg, self.device = model, cfg, device
        self.train_loader, self.eval_loader = train_loader, eval_loader
        body = [p for n, p in model.named_parameters() if not n.startswith("classifier.")]
        enc_opt = torch.optim.AdamW(body, lr=cfg.encoder_lr * hvd.size(), weight_decay=cfg.weight_decay)
        self.enc_opt = hvd.DistributedOptimizer(
            enc_opt, named_parameters=[(n, p) for n, p in model.named_parameters()
                                       if not n.startswith("classifier.")])
        self.head_opt = torch.optim.AdamW(model.classifier.parameters(), lr=cfg.head_lr * hvd.size())
        warm = lambda step: min(1.0, (step + 1) / cfg.warmup_steps)
        self.schedulers = [torch.optim.lr_scheduler.LambdaLR(o, warm) for o in (self.enc_opt, self.head_opt)]
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.fp16)

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for input_ids, labels in self.train_loader:
            input_ids, labels = input_ids.to(self.device), labels.to(self.device)
            self.enc_opt.zero_grad()
            self.head_opt.zero_grad()
            with torch.autocast(self.device.type, enabled=self.cfg.fp16):
                loss = F.cross_entropy(self.model(input_ids), labels)
            self.scaler.scale(loss).backward()
            self.enc_opt.synchronize()
            with self.enc_opt.skip_synchronize():
                self.scaler.step(self.enc_opt)
            self.scaler.step(self.head_opt)
            self.scaler.update()
            for s in self.schedulers:
                s.step()
            total += loss.item()
        return total / len(self.train_loader)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        preds, golds = [], []
        for input_ids, labels in self.eval_loader:
            preds.append(self.model(input_ids.to(self.device)).argmax(-1).cpu())
            golds.append(labels)
        preds = hvd.allgather(torch.cat(preds), name="eval_preds")
        golds = hvd.allgather(torch.cat(golds), name="eval_golds")
        f1s = []
        for c in golds.unique():
            tp = ((preds == c) & (golds == c)).sum().item()
            denom = (preds == c).sum().item() + (golds == c).sum().item()
            f1s.append(2 * tp / denom if denom else 0.0)
        return sum(f1s) / len(f1s)

    def save(self, path):
        if hvd.rank() != 0:
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"model": self.model.state_dict(), "enc_opt": self.enc_opt.state_dict(),
                    "head_opt": self.head_opt.state_dict()}, path)
