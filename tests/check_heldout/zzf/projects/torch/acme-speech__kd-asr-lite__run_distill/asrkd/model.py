import torch
import torch.nn as nn


class KWSNet(nn.Module):
    def __init__(self, n_mels=40, hidden=256, layers=3, num_classes=12):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_mels, hidden, 5, padding=2), nn.BatchNorm1d(hidden), nn.ReLU())
        self.rnn = nn.GRU(hidden, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, num_classes)

    def forward(self, x):                      # x: (B, T, n_mels)
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.head(h.mean(dim=1))


def teacher_from_checkpoint(path):
    ckpt = torch.load(path, map_location="cpu")
    net = KWSNet(**ckpt["arch"])
    net.load_state_dict(ckpt["state_dict"])
    net.eval().requires_grad_(False)
    return net
