import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

log = logging.getLogger('vreid')


def warmup_multistep(optimizer, warmup_iters, steps, iters_per_epoch, gamma=0.1):
    milestones = [s * iters_per_epoch for s in steps]

    def f(it):
        w = min(1.0, (it + 1) / warmup_iters)
        return w * gamma ** sum(it >= m for m in milestones)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


class Trainer(object):
    def __init__(self, model, optimizer, scheduler, criterion, cfg, device):
        self.model, self.criterion, self.cfg, self.device = model, criterion, cfg, device
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        self.scheduler = scheduler
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader, epoch):
        self.model.train()
        loader.sampler.set_epoch(epoch)
        for i, (img, vid, _) in enumerate(loader):
            img, vid = img.to(self.device), vid.to(self.device)
            feat, logit = self.model(img)
            loss = F.cross_entropy(logit, vid) + self.criterion(feat, vid)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            if hvd.rank() == 0 and i % 100 == 0:
                log.info('ep %d it %d/%d loss %.3f', epoch, i, len(loader), loss.item())

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({'epoch': epoch, 'state_dict': self.model.state_dict()},
                   os.path.join(self.cfg.out_dir, 'model_ep%03d.pth' % epoch))
