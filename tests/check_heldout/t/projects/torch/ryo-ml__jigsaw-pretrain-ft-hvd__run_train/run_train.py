"""Jigsaw toxicity: in-domain MLM pretraining, then fine-tuning, on N GPUs with Horovod.

    horovodrun -np 8 python run_train.py
"""
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from src.config import Config
from src.data import finetune_loaders, mask_tokens, pretrain_loader
from src.model import Classifier, Encoder, MLMModel
from src.optim import build_optimizer, linear_warmup
from src.utils import global_mean, log, save_rank0, seed_all

cfg = Config()
hvd.init()
seed_all(cfg.seed)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

encoder = Encoder(cfg.vocab_size, cfg.max_len, cfg.d_model, cfg.n_layers, cfg.n_heads)

# ------------------------------------------------------------------ phase 1: MLM pretraining
mlm = MLMModel(encoder, cfg.vocab_size).to(device)
loader, sampler = pretrain_loader(cfg, hvd.rank(), hvd.size())
optimizer = build_optimizer(mlm, cfg.pretrain_lr * hvd.size(), cfg.weight_decay)
scheduler = linear_warmup(optimizer, cfg.pretrain_epochs * len(loader) // cfg.accum_steps)
hvd.broadcast_parameters(mlm.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

for epoch in range(cfg.pretrain_epochs):
    sampler.set_epoch(epoch)
    mlm.train()
    tot, n = 0.0, 0
    for step, (ids,) in enumerate(loader):
        inp, labels = mask_tokens(ids, cfg.mask_prob, cfg.vocab_size)
        logits = mlm(inp.to(device))
        loss = F.cross_entropy(logits.view(-1, cfg.vocab_size), labels.to(device).view(-1), ignore_index=-100)
        (loss / cfg.accum_steps).backward()
        if (step + 1) % cfg.accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
        tot, n = tot + loss.item(), n + 1
    log(f"[pretrain] epoch {epoch} mlm loss {global_mean(tot, n, 'mlm_loss'):.4f}")
save_rank0(encoder.state_dict(), cfg.out_dir, "encoder_mlm.pt")

# ------------------------------------------------------------------ phase 2: fine-tuning
clf = Classifier(encoder).to(device)
(train_loader, train_sampler), (valid_loader, _) = finetune_loaders(cfg, hvd.rank(), hvd.size())
optimizer = build_optimizer(clf, cfg.finetune_lr, cfg.weight_decay)
scheduler = linear_warmup(optimizer, cfg.finetune_epochs * len(train_loader) // cfg.accum_steps)
hvd.broadcast_parameters(clf.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

best = float("inf")
for epoch in range(cfg.finetune_epochs):
    train_sampler.set_epoch(epoch)
    clf.train()
    for step, (ids, y) in enumerate(train_loader):
        loss = F.binary_cross_entropy_with_logits(clf(ids.to(device)), y.to(device))
        (loss / cfg.accum_steps).backward()
        if (step + 1) % cfg.accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()

    clf.eval()
    vloss, vcorrect, vn = 0.0, 0.0, 0
    with torch.no_grad():
        for ids, y in valid_loader:
            logit = clf(ids.to(device)).cpu()
            vloss += F.binary_cross_entropy_with_logits(logit, y, reduction="sum").item()
            vcorrect += ((logit > 0).float() == y).sum().item()
            vn += len(y)
    val_loss = global_mean(vloss, vn, "val_loss")
    val_acc = global_mean(vcorrect, vn, "val_acc")
    log(f"[finetune] epoch {epoch} val loss {val_loss:.4f} acc {val_acc:.4f}")
    if val_loss < best:
        best = val_loss
        save_rank0(clf.state_dict(), cfg.out_dir, "clf_best.pt")
