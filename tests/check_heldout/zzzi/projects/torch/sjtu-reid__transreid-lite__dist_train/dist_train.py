import argparse
import math
import os

import torch
import torchvision.transforms as T
from PIL import Image
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from transreid.defaults import get_cfg
from transreid.env import setup
from transreid.make_model import TransReID
from transreid.processor import do_train


class MSMT17(Dataset):
    """list_{split}.txt lines: '<relative path> <pid>'; camera id is the 3rd '_' field."""

    def __init__(self, root, split, transform):
        folder = 'train' if split in ('train', 'val') else 'test'
        with open(os.path.join(root, 'list_%s.txt' % split)) as fh:
            rows = [l.split() for l in fh if l.strip()]
        self.items = [(os.path.join(root, folder, p), int(pid), int(os.path.basename(p).split('_')[2]))
                      for p, pid in rows]
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        p, pid, cam = self.items[i]
        return self.transform(Image.open(p).convert('RGB')), pid, cam


class WarmupCosine(object):
    def __init__(self, optimizer, warmup, total, base_lr):
        self.opt, self.warmup, self.total, self.base_lr = optimizer, warmup, total, base_lr

    def step(self, epoch):
        if epoch <= self.warmup:
            lr = self.base_lr * epoch / self.warmup
        else:
            lr = 0.5 * self.base_lr * (1 + math.cos(math.pi * (epoch - self.warmup) / (self.total - self.warmup)))
        for g in self.opt.param_groups:
            g['lr'] = lr


def main():
    parser = argparse.ArgumentParser(description='TransReID-lite training (Horovod)')
    parser.add_argument('opts', nargs=argparse.REMAINDER, help='KEY=VALUE config overrides')
    cfg = get_cfg(parser.parse_args().opts)
    logger, device = setup(cfg)

    size = cfg.INPUT.SIZE
    norm = T.Normalize([0.5] * 3, [0.5] * 3)
    train_set = MSMT17(cfg.DATASETS.ROOT, 'train', T.Compose(
        [T.Resize(size), T.RandomHorizontalFlip(), T.Pad(10), T.RandomCrop(size), T.ToTensor(), norm,
         T.RandomErasing(p=0.5)]))
    test_tf = T.Compose([T.Resize(size), T.ToTensor(), norm])
    query_set = MSMT17(cfg.DATASETS.ROOT, 'query', test_tf)
    gallery_set = MSMT17(cfg.DATASETS.ROOT, 'gallery', test_tf)

    train_loader = DataLoader(train_set, batch_size=cfg.SOLVER.IMS_PER_BATCH, num_workers=8, drop_last=True,
                              sampler=DistributedSampler(train_set, hvd.size(), hvd.rank(), seed=cfg.SOLVER.SEED))
    query_loader = DataLoader(query_set, batch_size=256, num_workers=8,
                              sampler=DistributedSampler(query_set, hvd.size(), hvd.rank(), shuffle=False))
    gallery_loader = DataLoader(gallery_set, batch_size=256, num_workers=8,
                                sampler=DistributedSampler(gallery_set, hvd.size(), hvd.rank(), shuffle=False))

    num_classes = len({pid for _, pid, _ in train_set.items})
    model = TransReID(num_classes, cfg).to(device)
    base_lr = cfg.SOLVER.BASE_LR * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9, weight_decay=1e-4)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Average)
    scheduler = WarmupCosine(optimizer, cfg.SOLVER.WARMUP_EPOCHS, cfg.SOLVER.MAX_EPOCHS, base_lr)
    logger.info('base lr %.4f (x%d workers), %d ids, %d train images', base_lr, hvd.size(),
                num_classes, len(train_set))
    do_train(cfg, model, train_loader, query_loader, gallery_loader, optimizer, scheduler, device)


if __name__ == '__main__':
    main()
