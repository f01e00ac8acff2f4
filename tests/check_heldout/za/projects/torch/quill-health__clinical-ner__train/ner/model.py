import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, vocab_size, n_tags, emb_dim=200, hidden=256):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.lstm = nn.LSTM(emb_dim, hidden // 2, num_layers=2, bidirectional=True, batch_first=True)
        self.emit = nn.Linear(hidden, n_tags)

    def forward(self, x):
        return self.emit(self.lstm(self.emb(x))[0])


class CRF(nn.Module):
    def __init__(self, n_tags):
        super().__init__()
        self.trans = nn.Parameter(torch.zeros(n_tags, n_tags))
        self.start = nn.Parameter(torch.zeros(n_tags))

    def nll(self, emissions, tags, mask):
        B, L, _ = emissions.shape
        score = self.start[tags[:, 0]] + emissions[:, 0].gather(1, tags[:, :1]).squeeze(1)
        alpha = self.start + emissions[:, 0]
        for t in range(1, L):
            m = mask[:, t]
            step = self.trans[tags[:, t - 1], tags[:, t]] + emissions[:, t].gather(1, tags[:, t:t + 1]).squeeze(1)
            score = score + step * m
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.trans + emissions[:, t].unsqueeze(1), dim=1)
            alpha = torch.where(m.unsqueeze(1), nxt, alpha)
        return (torch.logsumexp(alpha, dim=1) - score).mean()

    def decode(self, emissions, mask):
        best, back = self.start + emissions[:, 0], []
        for t in range(1, emissions.size(1)):
            s, idx = (best.unsqueeze(2) + self.trans).max(dim=1)
            best = torch.where(mask[:, t].unsqueeze(1), s + emissions[:, t], best)
            back.append(idx)
        path = [best.argmax(1)]
        for idx in reversed(back):
            path.append(idx.gather(1, path[-1].unsqueeze(1)).squeeze(1))
        return torch.stack(path[::-1], dim=1)
