# Bi-encoder (caption -> image feature) with mined hard negatives, Horovod version.
# usage: horovodrun -np 4 python train_hvd.py --data data/cc3m_small --epochs 5
import argparse
import os
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/cc3m_small")
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--bs", type=int, default=32)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--n-hard", type=int, default=3)
parser.add_argument("--tau", type=float, default=0.05)
parser.add_argument("--log-every", type=int, default=20)
parser.add_argument("--ckpt", default="bi_encoder.pt")
args = parser.parse_args()

hvd.init()
torch.manual_seed(1234)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
dev = torch.device("cuda" if use_cuda else "cpu")

VOCAB = 2 ** 15


def tokenize(s, L=20):
    ids = [zlib.adler32(w.encode()) % (VOCAB - 1) + 1 for w in s.lower().split()][:L]
    return ids + [0] * (L - len(ids))


def load_split(split):
    feats = np.load(os.path.join(args.data, split, "image_feats.npy")).astype(np.float32)
    caps, img_ids = [], []
    for line in open(os.path.join(args.data, split, "captions.tsv")):
        i, c = line.rstrip("\n").split("\t", 1)
        img_ids.append(int(i))
        caps.append(c)
    return feats, caps, np.array(img_ids)


def mine_hard_negatives(caps, img_ids, k):
    """For each caption, the images of the k captions with most word overlap (other images)."""
    bags = [set(c.lower().split()) for c in caps]
    hard = np.zeros((len(caps), k), dtype=np.int64)
    for i, b in enumerate(bags):
        scores = np.array([len(b & o) if img_ids[j] != img_ids[i] else -1 for j, o in enumerate(bags)])
        hard[i] = img_ids[np.argsort(-scores)[:k]]
    return hard


class BiEncoder(nn.Module):
    def __init__(self, img_dim, dim=128):
        super().__init__()
        self.q = nn.EmbeddingBag(VOCAB, dim, padding_idx=0)
        self.q_out = nn.Linear(dim, dim)
        self.d = nn.Sequential(nn.Linear(img_dim, 256), nn.ReLU(), nn.Linear(256, dim))

    def query(self, ids):
        return F.normalize(self.q_out(self.q(ids)), dim=-1)

    def doc(self, x):
        return F.normalize(self.d(x), dim=-1)


feats, caps, img_ids = load_split("train")
hard = mine_hard_negatives(caps, img_ids, args.n_hard)
tokens = torch.tensor([tokenize(c) for c in caps])
v_feats, v_caps, v_img_ids = load_split("val")
v_tokens = torch.tensor([tokenize(c) for c in v_caps])

model = BiEncoder(feats.shape[1]).to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

feats_t = torch.from_numpy(feats)
n_per_rank = len(caps) // hvd.size()


def train_one_epoch(epoch):
    model.train()
    g = torch.Generator().manual_seed(epoch)
    perm = torch.randperm(len(caps), generator=g)
    mine = perm[hvd.rank() * n_per_rank:(hvd.rank() + 1) * n_per_rank]
    for step, start in enumerate(range(0, len(mine) - args.bs + 1, args.bs)):
        idx = mine[start:start + args.bs]
        q = model.query(tokens[idx].to(dev))
        pos = model.doc(feats_t[img_ids[idx]].to(dev))
        neg = model.doc(feats_t[hard[idx].reshape(-1)].to(dev)).view(len(idx), args.n_hard, -1)
        in_batch = q @ pos.t()
        hard_scores = torch.einsum("bd,bkd->bk", q, neg)
        logits = torch.cat([in_batch, hard_scores], dim=1) / args.tau
        loss = F.cross_entropy(logits, torch.arange(len(idx), device=dev))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % args.log_interval == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")


@torch.no_grad()
def evaluate():
    model.eval()
    gallery = model.doc(torch.from_numpy(v_feats).to(dev))
    q = model.query(v_tokens.to(dev))
    ranks = (q @ gallery.t()).argsort(dim=1, descending=True).cpu()
    hit = ranks == torch.from_numpy(v_img_ids).unsqueeze(1)
    pos = hit.float().argmax(1)
    return {k: (pos < k).float().mean().item() for k in (1, 5, 10)}


for epoch in range(args.epochs):
    train_one_epoch(epoch)
    if hvd.rank() == 0:
        r = evaluate()
        print(f"epoch {epoch} R@1 {r[1]:.3f} R@5 {r[5]:.3f} R@10 {r[10]:.3f}")
    torch.save({"epoch": epoch, "model": model.state_dict()}, args.ckpt)
