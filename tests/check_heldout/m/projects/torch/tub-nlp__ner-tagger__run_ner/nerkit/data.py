import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

PAD, UNK = "<pad>", "<unk>"


def read_conll(path):
    sents, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("-DOCSTART-"):
                if words:
                    sents.append((words, tags))
                    words, tags = [], []
                continue
            cols = line.split()
            words.append(cols[0])
            tags.append(cols[-1])
    if words:
        sents.append((words, tags))
    return sents


class Vocab:
    def __init__(self, items, specials=(PAD, UNK), min_freq=1):
        counts = {}
        for it in items:
            counts[it] = counts.get(it, 0) + 1
        self.itos = list(specials) + sorted(k for k, c in counts.items() if c >= min_freq and k not in specials)
        self.stoi = {s: i for i, s in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, seq):
        unk = self.stoi.get(UNK, 0)
        return [self.stoi.get(s, unk) for s in seq]


class NERDataset(Dataset):
    def __init__(self, sents, word_vocab, tag_vocab):
        self.items = [(word_vocab.encode([w.lower() for w in ws]), tag_vocab.encode(ts)) for ws, ts in sents]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    n = max(len(w) for w, _ in batch)
    words = torch.zeros(len(batch), n, dtype=torch.long)
    tags = torch.full((len(batch), n), -100, dtype=torch.long)
    for i, (w, t) in enumerate(batch):
        words[i, :len(w)] = torch.tensor(w)
        tags[i, :len(t)] = torch.tensor(t)
    return words, tags


def build_loaders(args, rank, world):
    train = read_conll(args.train_file)
    dev = read_conll(args.dev_file)
    word_vocab = Vocab([w.lower() for ws, _ in train for w in ws], min_freq=2)
    tag_vocab = Vocab([t for _, ts in train for t in ts], specials=())
    train_ds, dev_ds = NERDataset(train, word_vocab, tag_vocab), NERDataset(dev, word_vocab, tag_vocab)
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    dev_sampler = DistributedSampler(dev_ds, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, collate_fn=collate)
    dev_loader = DataLoader(dev_ds, batch_size=args.eval_batch_size, sampler=dev_sampler, collate_fn=collate)
    return train_loader, dev_loader, word_vocab, tag_vocab
