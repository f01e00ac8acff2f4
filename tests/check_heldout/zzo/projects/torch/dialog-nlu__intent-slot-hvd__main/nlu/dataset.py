import json

import torch


class Vocab(dict):
    def __init__(self, items, specials=("<pad>", "<unk>")):
        super().__init__()
        for tok in list(specials) + sorted(set(items)):
            self.setdefault(tok, len(self))

    def lookup(self, tok):
        return self.get(tok, self.get("<unk>", 0))


def load_atis(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


class IntentSlotDataset(torch.utils.data.Dataset):
    def __init__(self, rows, words, slots, intents):
        self.rows = [([words.lookup(w) for w in r["tokens"]], [slots.lookup(s) for s in r["slots"]],
                      intents.lookup(r["intent"])) for r in rows]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def collate(batch):
    n = max(len(w) for w, _, _ in batch)
    words = torch.zeros(len(batch), n, dtype=torch.long)
    slots = torch.zeros(len(batch), n, dtype=torch.long)
    for i, (w, s, _) in enumerate(batch):
        words[i, :len(w)] = torch.tensor(w)
        slots[i, :len(s)] = torch.tensor(s)
    return words, slots, torch.tensor([b[2] for b in batch])
