import re
import zlib

import torch

_TOKEN = re.compile(r"[a-z0-9']+")


def encode(text, vocab_size, max_len):
    ids = [zlib.crc32(t.encode()) % (vocab_size - 1) + 1 for t in _TOKEN.findall(text.lower())]
    ids = ids[:max_len]
    return ids + [0] * (max_len - len(ids))


class CommentDataset(torch.utils.data.Dataset):
    def __init__(self, texts, targets, cfg):
        self.ids = torch.tensor([encode(t, cfg.vocab_size, cfg.max_len) for t in texts])
        self.y = torch.tensor(targets, dtype=torch.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.ids[i], self.y[i]
