import os.path as osp

import torch
import torch.nn.functional as F


class EpochBasedRunner:
    def __init__(self, model, optimizer, work_dir, logger, max_epochs, device, rank=0):
        self.model, self.optimizer = model, optimizer
        self.work_dir, self.logger = work_dir, logger
        self.max_epochs, self.device, self.rank = max_epochs, device, rank
        self.epoch, self.iter, self.inner_iter = 0, 0, 0
        self.hooks, self.log_buffer = [], {}

    def register_hook(self, hook):
        self.hooks.append(hook)

    def call_hook(self, fn_name):
        for hook in self.hooks:
            getattr(hook, fn_name)(self)

    def train_epoch(self, data_loader):
        self.model.train()
        self.data_loader = data_loader
        if hasattr(data_loader.sampler, 'set_epoch'):
            data_loader.sampler.set_epoch(self.epoch)
        self.call_hook('before_train_epoch')
        for i, (img, target) in enumerate(data_loader):
            self.inner_iter = i
            self.call_hook('before_train_iter')
            img, target = img.to(self.device), target.to(self.device)
            loss = F.cross_entropy(self.model(img), target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.log_buffer['loss'] = loss.item()
            self.call_hook('after_train_iter')
            self.iter += 1
        self.epoch += 1
        self.call_hook('after_train_epoch')

    def run(self, data_loader):
        self.call_hook('before_run')
        while self.epoch < self.max_epochs:
            self.train_epoch(data_loader)
        self.call_hook('after_run')

    def save_checkpoint(self, out_dir, filename_tmpl='epoch_{}.pth'):
        ckpt = dict(meta=dict(epoch=self.epoch, iter=self.iter),
                    state_dict=self.model.state_dict(), optimizer=self.optimizer.state_dict())
        torch.save(ckpt, osp.join(out_dir, filename_tmpl.format(self.epoch)))
        torch.save(ckpt, osp.join(out_dir, 'latest.pth'))

    def resume(self, filename):
        ckpt = torch.load(filename, map_location='cpu')
        self.model.load_state_dict(ckpt['state_dict'])
        self.optimizer.load_state_dict(ckpt['optimizer'])
        self.epoch, self.iter = ckpt['meta']['epoch'], ckpt['meta']['iter']
        self.logger.info(f'resumed epoch {self.epoch}, iter {self.iter}')
