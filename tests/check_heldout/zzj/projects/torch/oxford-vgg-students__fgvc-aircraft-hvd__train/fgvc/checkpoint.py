import os

import torch

from .dist import is_main


class Checkpointer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.best = -1.0

    def step(self, model, epoch, acc):
        if not is_main():
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(self.out_dir, 'last.pt'))
        if acc > self.best:
            self.best = acc
            torch.save(model.state_dict(), os.path.join(self.out_dir, 'best.pt'))
