import os

import torch
import horovod.torch as hvd


class CheckpointSaver:
    def __init__(self, out_dir, max_history=3):
        self.out_dir = out_dir
        self.max_history = max_history
        self.history = []  # (metric, path)

    def save(self, model, optimizer, epoch, metric):
        if hvd.rank() != 0:
            return None
        os.makedirs(self.out_dir, exist_ok=True)
        path = os.path.join(self.out_dir, 'checkpoint-%d.pth.tar' % epoch)
        torch.save({'epoch': epoch, 'state_dict': model.state_dict(),
                    'optimizer': optimizer.state_dict(), 'metric': metric}, path)
        self.history = sorted(self.history + [(metric, path)], reverse=True)
        while len(self.history) > self.max_history:
            os.remove(self.history.pop()[1])
        return self.history[0]
