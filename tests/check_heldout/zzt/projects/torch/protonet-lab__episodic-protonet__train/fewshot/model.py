import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))


class Conv4(nn.Module):
    def __init__(self, in_ch=1, hid=64):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(in_ch, hid), conv_block(hid, hid),
                                     conv_block(hid, hid), conv_block(hid, hid))

    def forward(self, x):
        return self.encoder(x).flatten(1)


def prototypical_loss(support, query, n_way, k_shot):
    """support: (n_way*k_shot, d) ordered class by class; query: (n_way*n_query, d) likewise."""
    protos = support.view(n_way, k_shot, -1).mean(1)
    logits = -torch.cdist(query, protos) ** 2
    n_query = query.size(0) // n_way
    target = torch.arange(n_way, device=query.device).repeat_interleave(n_query)
    loss = F.cross_entropy(logits, target)
    acc = (logits.argmax(1) == target).float().mean()
    return loss, acc
