import torch
import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
    )


class Conv4(nn.Module):
    """The 4-block ConvNet of Snell et al.; 84x84 input -> 1600-d embedding with hid=64."""

    def __init__(self, in_ch=3, hid=64, out=64):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(in_ch, hid), conv_block(hid, hid),
                                     conv_block(hid, hid), conv_block(hid, out))

    def forward(self, x):
        return self.encoder(x).flatten(1)


def euclidean_logits(query, protos):
    # -||q - c||^2, shape (n_query, n_way)
    n, m = query.size(0), protos.size(0)
    q = query.unsqueeze(1).expand(n, m, -1)
    c = protos.unsqueeze(0).expand(n, m, -1)
    return -((q - c) ** 2).sum(dim=2)


def proto_loss(model, support, query, way, shot, n_query):
    emb = model(torch.cat([support, query], 0))
    protos = emb[: way * shot].view(way, shot, -1).mean(1)
    logits = euclidean_logits(emb[way * shot:], protos)
    target = torch.arange(way, device=logits.device).repeat_interleave(n_query)
    loss = nn.functional.cross_entropy(logits, target)
    acc = (logits.argmax(1) == target).float().mean()
    return loss, acc
