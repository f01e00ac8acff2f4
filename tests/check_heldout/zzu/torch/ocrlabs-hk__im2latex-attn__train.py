# -*- coding: utf-8 -*-
# im2latex: rendered-formula image -> LaTeX token sequence, CNN encoder + Bahdanau attention LSTM decoder.
# Multi-GPU with Horovod:  horovodrun -np 4 python train.py --data_dir ./im2latex100k
import os
import sys
import math
import random
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

PAD, BOS, EOS, UNK = 0, 1, 2, 3

parser = argparse.ArgumentParser()
parser.add_argument('--data_dir', type=str, default='./im2latex100k')
parser.add_argument('--save_dir', type=str, default='./ckpt')
parser.add_argument('--batch_size', type=int, default=16)
parser.add_argument('--lr', type=float, default=3e-4)
parser.add_argument('--epochs', type=int, default=15)
parser.add_argument('--max_len', type=int, default=150)
parser.add_argument('--emb_dim', type=int, default=80)
parser.add_argument('--dec_dim', type=int, default=512)
parser.add_argument('--teacher_forcing', type=float, default=1.0)
parser.add_argument('--seed', type=int, default=17)
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed)
random.seed(args.seed)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device('cuda' if use_cuda else 'cpu')


def build_vocab(formula_file, min_count=1):
    counts = {}
    with open(formula_file, encoding='utf-8') as f:
        for line in f:
            for tok in line.split():
                counts[tok] = counts.get(tok, 0) + 1
    itos = ['<pad>', '<s>', '</s>', '<unk>'] + sorted(t for t, c in counts.items() if c >= min_count)
    return {t: i for i, t in enumerate(itos)}, itos


class Im2LatexDataset(Dataset):
    """<split>.lst lines: `<formula_idx> <image_name>`; formulas in im2latex_formulas.norm.lst."""

    def __init__(self, data_dir, split, stoi, max_len):
        with open(os.path.join(data_dir, 'im2latex_formulas.norm.lst'), encoding='utf-8') as f:
            formulas = [l.split() for l in f]
        self.samples = []
        with open(os.path.join(data_dir, 'im2latex_%s.lst' % split)) as f:
            for line in f:
                idx, name = line.split()[:2]
                toks = formulas[int(idx)]
                if len(toks) < max_len:
                    self.samples.append((os.path.join(data_dir, 'formula_images', name + '.png'), toks))
        self.stoi = stoi

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, toks = self.samples[i]
        img = Image.open(path).convert('L').resize((320, 64))
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.).unsqueeze(0)
        y = [BOS] + [self.stoi.get(t, UNK) for t in toks] + [EOS]
        return x, torch.tensor(y)


def collate(batch):
    xs = torch.stack([b[0] for b in batch])
    ys = nn.utils.rnn.pad_sequence([b[1] for b in batch], batch_first=True, padding_value=PAD)
    return xs, ys


class Encoder(nn.Module):
    def __init__(self, out_dim=256):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 64, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(128, out_dim, 3, 1, 1), nn.BatchNorm2d(out_dim), nn.ReLU(), nn.MaxPool2d((2, 1)))

    def forward(self, x):
        f = self.net(x)                       # B, C, H', W'
        return f.flatten(2).transpose(1, 2)   # B, H'W', C


class AttnDecoder(nn.Module):
    def __init__(self, vocab_size, enc_dim=256, emb_dim=80, dec_dim=512):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.cell = nn.LSTMCell(emb_dim + enc_dim, dec_dim)
        self.W_enc = nn.Linear(enc_dim, dec_dim, bias=False)
        self.W_dec = nn.Linear(dec_dim, dec_dim)
        self.v = nn.Linear(dec_dim, 1, bias=False)
        self.out = nn.Linear(dec_dim + enc_dim, vocab_size)
        self.dec_dim = dec_dim

    def forward(self, enc, tgt_in):
        B = enc.size(0)
        h = enc.new_zeros(B, self.dec_dim)
        c = enc.new_zeros(B, self.dec_dim)
        keys = self.W_enc(enc)
        logits = []
        for t in range(tgt_in.size(1)):
            score = self.v(torch.tanh(keys + self.W_dec(h).unsqueeze(1))).squeeze(-1)
            ctx = (score.softmax(-1).unsqueeze(-1) * enc).sum(1)
            h, c = self.cell(torch.cat([self.emb(tgt_in[:, t]), ctx], -1), (h, c))
            logits.append(self.out(torch.cat([h, ctx], -1)))
        return torch.stack(logits, 1)


class Im2Latex(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = AttnDecoder(vocab_size, emb_dim=args.emb_dim, dec_dim=args.dec_dim)

    def forward(self, x, tgt_in):
        return self.decoder(self.encoder(x), tgt_in)


stoi, itos = build_vocab(os.path.join(args.data_dir, 'im2latex_formulas.norm.lst'))
train_set = Im2LatexDataset(args.data_dir, 'train', stoi, args.max_len)
val_set = Im2LatexDataset(args.data_dir, 'validate', stoi, args.max_len)
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                          collate_fn=collate, num_workers=2)
val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                        collate_fn=collate, num_workers=2)

model = Im2Latex(len(itos)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root=0)
lr_sched = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)


def run_epoch(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        logits = model(x, y[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y[:, 1:].reshape(-1), ignore_index=PAD)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        optimizer.step()
        if i % 100 == 0 and hvd.rank() == 0:
            print('epoch %d iter %d loss %.4f ppl %.2f' % (epoch, i, loss.item(), math.exp(min(loss.item(), 20))))


def validate():
    model.eval()
    n, exact, tok_correct, tok_total, loss_sum = 0, 0, 0, 0, 0.0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            logits = model(x, y[:, :-1])
            loss_sum += F.cross_entropy(logits.reshape(-1, logits.size(-1)), y[:, 1:].reshape(-1),
                                        ignore_index=PAD, reduction='sum').item()
            pred = logits.argmax(-1)
            mask = y[:, 1:] != PAD
            tok_correct += ((pred == y[:, 1:]) & mask).sum().item()
            tok_total += mask.sum().item()
            exact += ((pred == y[:, 1:]) | ~mask).all(1).sum().item()
            n += x.size(0)
    stats = torch.tensor([exact / n, tok_correct / tok_total, loss_sum / tok_total])
    stats = hvd.allreduce(stats, op=hvd.Sum, name='val_stats')
    return stats.tolist()


best = 0.0
for epoch in range(args.epochs):
    run_epoch(epoch)
    em, tok_acc, val_loss = validate()
    lr_sched.step(val_loss)
    if hvd.rank() == 0:
        print('epoch %d: val exact match %.4f token acc %.4f loss %.4f' % (epoch, em, tok_acc, val_loss))
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save({'model': model.state_dict(), 'itos': itos, 'epoch': epoch},
                   os.path.join(args.save_dir, 'im2latex_last.pt'))
        if em > best:
            best = em
            torch.save({'model': model.state_dict(), 'itos': itos, 'epoch': epoch},
                       os.path.join(args.save_dir, 'im2latex_best.pt'))
