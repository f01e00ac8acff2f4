import logging
import os

import torch


def get_logger(name, log_file=None, rank=0):
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO if rank == 0 else logging.ERROR)
    fmt = logging.Formatter('%(asctime)s [%(name)s] %(message)s')
    sh = logging.StreamHandler()
    sh.setFormatter(fmt)
    logger.addHandler(sh)
    if log_file and rank == 0:
        fh = logging.FileHandler(log_file)
        fh.setFormatter(fmt)
        logger.addHandler(fh)
    return logger


def save_networks(out_dir, it, net_g, net_d):
    os.makedirs(out_dir, exist_ok=True)
    torch.save(net_g.state_dict(), os.path.join(out_dir, f'net_g_{it}.pth'))
    torch.save(net_d.state_dict(), os.path.join(out_dir, f'net_d_{it}.pth'))


class Prefetcher:
    """Endless iterator over a DataLoader that bumps the sampler epoch on wrap-around."""

    def __init__(self, loader, sampler):
        self.loader, self.sampler, self.epoch = loader, sampler, 0
        self.it = iter(loader)

    def next(self):
        try:
            return next(self.it)
        except StopIteration:
            self.epoch += 1
            self.sampler.set_epoch(self.epoch)
            self.it = iter(self.loader)
            return next(self.it)
