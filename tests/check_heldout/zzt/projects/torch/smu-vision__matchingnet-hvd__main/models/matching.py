import torch
import torch.nn as nn
import torch.nn.functional as F


class MatchingNetwork(nn.Module):
    """Matching Networks (Vinyals et al. 2016) without full-context embeddings."""

    def __init__(self, in_ch=1, hid=64):
        super().__init__()
        blocks = []
        for i in range(4):
            blocks += [nn.Conv2d(in_ch if i == 0 else hid, hid, 3, padding=1),
                       nn.BatchNorm2d(hid), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True)]
        self.g = nn.Sequential(*blocks)

    def forward(self, support, support_y, query, n_way):
        s = F.normalize(self.g(support).flatten(1), dim=1)
        q = F.normalize(self.g(query).flatten(1), dim=1)
        attn = (q @ s.t()).softmax(dim=1)                       # (n_q, n_s)
        one_hot = F.one_hot(support_y, n_way).float()
        return torch.log(attn @ one_hot + 1e-8)                 # log class probabilities
