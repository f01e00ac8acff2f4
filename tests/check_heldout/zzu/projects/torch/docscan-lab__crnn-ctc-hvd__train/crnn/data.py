import io
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class LineImageDataset(Dataset):
    """Reads `relative/path.png<TAB>transcription` lines from a list file."""

    def __init__(self, root, list_file, charset, height=32, width=256):
        self.root, self.charset = root, charset
        self.height, self.width = height, width
        with io.open(list_file, encoding="utf-8") as fh:
            self.items = [l.rstrip("\n").split("\t", 1) for l in fh if "\t" in l]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        path, text = self.items[idx]
        img = Image.open(os.path.join(self.root, path)).convert("L")
        img = img.resize((self.width, self.height))
        x = torch.frombuffer(bytearray(img.tobytes()), dtype=torch.uint8)
        x = x.view(1, self.height, self.width).float().div_(255.0)
        return x, torch.tensor(self.charset.encode(text), dtype=torch.long), text


def ctc_collate(batch):
    images = torch.stack([b[0] for b in batch])
    targets = torch.cat([b[1] for b in batch])
    lengths = torch.tensor([len(b[1]) for b in batch], dtype=torch.long)
    return images, targets, lengths, [b[2] for b in batch]


def build_loader(root, list_file, charset, batch_size, train, workers=4):
    ds = LineImageDataset(root, list_file, charset)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        collate_fn=ctc_collate, drop_last=train, pin_memory=True)
    return loader, sampler
