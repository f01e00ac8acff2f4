import torch
import torch.nn as nn
import torch.nn.functional as F


class TNet(nn.Module):
    """Predicts a k x k alignment matrix from the raw point set."""

    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv1d(k, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Conv1d(64, 256, 1), nn.BatchNorm1d(256), nn.ReLU())
        self.fc = nn.Linear(256, k * k)
        nn.init.zeros_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x):
        t = self.conv(x).max(dim=2).values
        return self.fc(t).view(-1, self.k, self.k) + torch.eye(self.k, device=x.device)


class PointNetCls(nn.Module):
    def __init__(self, num_classes=40, dropout=0.4):
        super().__init__()
        self.tnet = TNet(3)
        self.feat = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Conv1d(128, 512, 1), nn.BatchNorm1d(512))
        self.head = nn.Sequential(nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(),
                                  nn.Dropout(dropout), nn.Linear(256, num_classes))

    def forward(self, pts):                       # pts: (B, N, 3)
        x = pts.transpose(1, 2)
        x = torch.bmm(self.tnet(x).transpose(1, 2), x)
        x = self.feat(x).max(dim=2).values
        return self.head(x)


def smooth_ce(logits, target, eps=0.2):
    n = logits.size(1)
    one_hot = F.one_hot(target, n).float() * (1 - eps) + eps / n
    return -(one_hot * F.log_softmax(logits, dim=1)).sum(1).mean()
