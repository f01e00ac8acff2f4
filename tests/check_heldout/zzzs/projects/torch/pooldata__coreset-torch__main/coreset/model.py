import torch.nn as nn


class FeatNet(nn.Module):
    def __init__(self, d_in, n_cls, width=512):
        super(FeatNet, self).__init__()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.ReLU(),
                                  nn.Linear(width, width // 2), nn.ReLU())
        self.head = nn.Linear(width // 2, n_cls)

    def forward(self, x, return_emb=False):
        e = self.body(x)
        out = self.head(e)
        if return_emb:
            return out, e
        return out


def build_model(d_in, n_cls, width):
    return FeatNet(d_in, n_cls, width)
