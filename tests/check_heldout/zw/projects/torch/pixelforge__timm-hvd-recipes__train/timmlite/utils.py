import glob
import logging
import operator
import os
from copy import deepcopy

import torch
import horovod.torch as hvd


def setup_default_logging(level=logging.INFO):
    logging.basicConfig(level=level, format='%(asctime)s %(name)s %(levelname)s: %(message)s')


class AverageMeter:
    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = min(max(topk), output.size(1))
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.reshape(1, -1).expand_as(pred.t()))
    return [correct[:min(k, maxk)].reshape(-1).float().sum(0) * 100. / target.size(0) for k in topk]


def reduce_tensor(tensor, name):
    return hvd.allreduce(tensor.detach(), name=name, op=hvd.Average)


class ModelEmaV2(torch.nn.Module):
    def __init__(self, model, decay=0.9999):
        super().__init__()
        self.module = deepcopy(model).eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
            if ema_v.dtype.is_floating_point:
                ema_v.mul_(self.decay).add_(model_v, alpha=1. - self.decay)
            else:
                ema_v.copy_(model_v)


class CheckpointSaver:
    def __init__(self, model, optimizer, args, model_ema=None, checkpoint_dir='', max_history=10):
        self.model, self.optimizer, self.args, self.model_ema = model, optimizer, args, model_ema
        self.checkpoint_dir, self.max_history = checkpoint_dir, max_history
        self.checkpoint_files = []  # (filename, metric)
        os.makedirs(checkpoint_dir, exist_ok=True)

    def save_checkpoint(self, epoch, metric=None):
        state = {'epoch': epoch, 'arch': self.args.model, 'state_dict': self.model.state_dict(),
                 'optimizer': self.optimizer.state_dict(), 'metric': metric}
        if self.model_ema is not None:
            state['state_dict_ema'] = self.model_ema.module.state_dict()
        torch.save(state, os.path.join(self.checkpoint_dir, 'last.pth.tar'))
        filename = os.path.join(self.checkpoint_dir, f'checkpoint-{epoch}.pth.tar')
        torch.save(state, filename)
        self.checkpoint_files = sorted(self.checkpoint_files + [(filename, metric)],
                                       key=operator.itemgetter(1), reverse=True)
        for old, _ in self.checkpoint_files[self.max_history:]:
            os.remove(old)
        self.checkpoint_files = self.checkpoint_files[:self.max_history]
        best_file, best = self.checkpoint_files[0]
        return best, int(best_file.rsplit('-', 1)[1].split('.')[0])
