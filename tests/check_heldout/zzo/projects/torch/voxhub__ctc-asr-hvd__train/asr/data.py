import math

import numpy as np
import torch


def load_manifest(path):
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return [(feat, int(frames), text) for feat, frames, text in rows]


class FeatureDataset(torch.utils.data.Dataset):
    def __init__(self, rows, tokenizer):
        self.rows, self.tokenizer = rows, tokenizer

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        feat, _, text = self.rows[i]
        x = torch.from_numpy(np.load(feat)).float()
        return x, torch.tensor(self.tokenizer.encode(text)), text


class DistributedBucketSampler(torch.utils.data.Sampler):
    def __init__(self, frames, batch_size, num_replicas, rank, seed=0):
        self.frames, self.batch_size = frames, batch_size
        self.num_replicas, self.rank, self.seed, self.epoch = num_replicas, rank, seed, 0
        self.num_samples = math.ceil(len(frames) / num_replicas)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        # different stream per worker so the buckets do not line up across GPUs
        g = torch.Generator()
        g.manual_seed(self.seed + 1000 * self.epoch + self.rank)
        indices = torch.randperm(len(self.frames), generator=g).tolist()
        indices += indices[: self.num_samples * self.num_replicas - len(indices)]
        mine = indices[self.rank::self.num_replicas]
        for k in range(0, len(mine), self.batch_size * 50):
            chunk = sorted(mine[k:k + self.batch_size * 50], key=lambda i: self.frames[i])
            for b in range(0, len(chunk), self.batch_size):
                yield chunk[b:b + self.batch_size]

    def __len__(self):
        return math.ceil(self.num_samples / self.batch_size)


def collate(batch):
    feats, labels, texts = zip(*batch)
    feat_lens = torch.tensor([f.size(0) for f in feats])
    label_lens = torch.tensor([len(l) for l in labels])
    feats = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    labels = torch.nn.utils.rnn.pad_sequence(labels, batch_first=True)
    return feats, feat_lens, labels, label_lens, list(texts)
