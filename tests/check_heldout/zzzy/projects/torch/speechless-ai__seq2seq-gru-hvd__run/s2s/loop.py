import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from .data import PAD


def train_epoch(model, optimizer, loader, device, cfg, tf_ratio):
    model.train()
    total, n = 0.0, 0
    for src, tgt in loader:
        src, tgt = src.to(device), tgt.to(device)
        optimizer.zero_grad()
        logits = model(src, tgt, teacher_forcing=tf_ratio)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), tgt.view(-1), ignore_index=PAD)
        loss.backward()
        optimizer.synchronize()
        nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        with optimizer.skip_synchronize():
            optimizer.step()
        total += loss.item()
        n += 1
    return total / max(n, 1)


def evaluate(model, loader, device):
    """mean token loss on this loader, teacher forced"""
    model.eval()
    tot, ntok = 0.0, 0
    with torch.no_grad():
        for src, tgt in loader:
            src, tgt = src.to(device), tgt.to(device)
            logits = model(src, tgt, teacher_forcing=1.0)
            tot += F.cross_entropy(logits.view(-1, logits.size(-1)), tgt.view(-1),
                                   ignore_index=PAD, reduction='sum').item()
            ntok += (tgt != PAD).sum().item()
    return tot / max(ntok, 1)


def save_ckpt(model, optimizer, epoch, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'epoch': epoch}, path)


def greedy_samples(model, pairs, sv, tv, device):
    model.eval()
    for s, _ in pairs:
        src = torch.tensor(sv.encode(s), device=device).unsqueeze(1)
        ids = model.greedy(src).squeeze(1).tolist()
        yield ' '.join(s), tv.decode(ids)
