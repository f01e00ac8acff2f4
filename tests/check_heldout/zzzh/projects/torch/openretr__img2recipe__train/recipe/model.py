import torch
import torch.nn as nn
import torch.nn.functional as F


class Im2Recipe(nn.Module):
    def __init__(self, img_dim, vocab=8192, dim=256):
        super().__init__()
        self.img = nn.Sequential(nn.Linear(img_dim, dim), nn.BatchNorm1d(dim), nn.ReLU(), nn.Linear(dim, dim))
        self.words = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.txt = nn.Linear(dim, dim)

    def forward(self, image, ids):
        _, (h, _) = self.lstm(self.words(ids))
        return F.normalize(self.img(image), dim=-1), F.normalize(self.txt(h[-1]), dim=-1)


def hardest_negative_triplet(a, b, margin=0.3):
    """VSE++ loss: hinge on the hardest in-batch negative in each direction."""
    s = a @ b.t()
    pos = s.diag()
    mask = torch.eye(len(s), dtype=torch.bool, device=s.device)
    neg_b = s.masked_fill(mask, -1).max(1).values
    neg_a = s.masked_fill(mask, -1).max(0).values
    return (F.relu(margin - pos + neg_b) + F.relu(margin - pos + neg_a)).mean()


@torch.no_grad()
def recall_median_rank(img, txt, ks=(1, 5, 10)):
    ranks = (txt @ img.t()).argsort(1, descending=True)
    pos = (ranks == torch.arange(len(img), device=img.device)[:, None]).nonzero()[:, 1].float()
    out = {f"R@{k}": (pos < k).float().mean().item() for k in ks}
    out["medR"] = pos.median().item() + 1
    return out
