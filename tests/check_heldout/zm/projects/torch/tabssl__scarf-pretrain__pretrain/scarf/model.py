import copy

import torch
from torch import nn
import torch.nn.functional as F


def encoder(in_dim, hidden, emb_dim):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, emb_dim))


class MoCoTab(nn.Module):
    def __init__(self, in_dim, hidden, emb_dim, queue_size, momentum, temperature):
        super().__init__()
        self.encoder_q = encoder(in_dim, hidden, emb_dim)
        self.encoder_k = copy.deepcopy(self.encoder_q)
        for p in self.encoder_k.parameters():
            p.requires_grad_(False)
        self.m, self.t = momentum, temperature
        self.register_buffer("queue", F.normalize(torch.randn(queue_size, emb_dim), dim=1))
        self.register_buffer("ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def momentum_update(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.mul_(self.m).add_(pq.detach(), alpha=1 - self.m)

    @torch.no_grad()
    def enqueue(self, keys):
        n, ptr = keys.shape[0], int(self.ptr)
        idx = torch.arange(ptr, ptr + n, device=keys.device) % self.queue.shape[0]
        self.queue[idx] = keys
        self.ptr[0] = (ptr + n) % self.queue.shape[0]

    def forward(self, v1, v2):
        q = F.normalize(self.encoder_q(v1), dim=1)
        with torch.no_grad():
            self.momentum_update()
            k = F.normalize(self.encoder_k(v2), dim=1)
        pos = (q * k).sum(1, keepdim=True)
        neg = q @ self.queue.t()
        logits = torch.cat([pos, neg], dim=1) / self.t
        loss = F.cross_entropy(logits, torch.zeros(len(q), dtype=torch.long, device=q.device))
        return loss, k
