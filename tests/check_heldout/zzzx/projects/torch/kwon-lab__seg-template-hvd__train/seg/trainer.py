import time

import numpy as np
import torch
import horovod.torch as hvd

from seg.losses import confusion_matrix, miou_from_confusion


class SegTrainer:
    def __init__(self, model, criterion, optimizer, config, device,
                 data_loader, valid_data_loader=None, lr_scheduler=None):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.config = config
        self.device = device
        self.data_loader = data_loader
        self.valid_data_loader = valid_data_loader
        self.lr_scheduler = lr_scheduler
        self.logger = config.get_logger('trainer')

        cfg = config['trainer']
        self.epochs = cfg['epochs']
        self.save_period = cfg['save_period']
        self.n_classes = config['arch']['args']['n_classes']
        self.mnt_mode, self.mnt_metric = cfg.get('monitor', 'max val_miou').split()
        self.mnt_best = -np.inf if self.mnt_mode == 'max' else np.inf
        self.start_epoch = 1
        self.checkpoint_dir = config.save_dir

        if config.resume is not None:
            self._resume_checkpoint(config.resume)

    def _train_epoch(self, epoch):
        self.model.train()
        if hasattr(self.data_loader.sampler, 'set_epoch'):
            self.data_loader.sampler.set_epoch(epoch)
        t0 = time.time()
        loss_sum, n = 0.0, 0
        for step, (img, mask) in enumerate(self.data_loader):
            img, mask = img.to(self.device), mask.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(img), mask)
            loss.backward()
            self.optimizer.step()
            loss_sum += loss.item() * img.size(0)
            n += img.size(0)
            if step % 20 == 0:
                self.logger.debug('epoch %d step %d loss %.4f', epoch, step, loss.item())
        stats = hvd.allreduce(torch.tensor([loss_sum, float(n)]), op=hvd.Sum, name='train_loss')
        log = {'loss': (stats[0] / stats[1]).item(), 'time': time.time() - t0}
        if self.valid_data_loader is not None:
            log.update(self._valid_epoch())
        if self.lr_scheduler is not None:
            self.lr_scheduler.step()
        return log

    @torch.no_grad()
    def _valid_epoch(self):
        self.model.eval()
        cm = torch.zeros(self.n_classes, self.n_classes, dtype=torch.long)
        for img, mask in self.valid_data_loader:
            img, mask = img.to(self.device), mask.to(self.device)
            pred = self.model(img).argmax(1)
            cm += confusion_matrix(pred.cpu(), mask.cpu(), self.n_classes)
        cm = hvd.allreduce(cm, op=hvd.Sum, name='val_confusion')
        miou, pix_acc = miou_from_confusion(cm)
        return {'val_miou': miou, 'val_pixacc': pix_acc}

    def train(self):
        for epoch in range(self.start_epoch, self.epochs + 1):
            log = self._train_epoch(epoch)
            self.logger.info('epoch %d: %s', epoch, log)
            best = False
            cur = log.get(self.mnt_metric)
            if cur is not None and ((self.mnt_mode == 'max' and cur > self.mnt_best) or
                                    (self.mnt_mode == 'min' and cur < self.mnt_best)):
                self.mnt_best, best = cur, True
            if hvd.rank() == 0 and (epoch % self.save_period == 0 or best):
                self._save_checkpoint(epoch, save_best=best)

    def _save_checkpoint(self, epoch, save_best=False):
        state = {
            'arch': type(self.model).__name__,
            'epoch': epoch,
            'state_dict': self.model.state_dict(),
            'optimizer': self.optimizer.state_dict(),
            'monitor_best': self.mnt_best,
            'config': self.config.config,
        }
        torch.save(state, str(self.checkpoint_dir / 'checkpoint-epoch{}.pth'.format(epoch)))
        if save_best:
            torch.save(state, str(self.checkpoint_dir / 'model_best.pth'))
            self.logger.info('saving current best: model_best.pth ...')

    def _resume_checkpoint(self, resume_path):
        checkpoint = torch.load(str(resume_path), map_location='cpu')
        self.start_epoch = checkpoint['epoch'] + 1
        self.mnt_best = checkpoint['monitor_best']
        self.model.load_state_dict(checkpoint['state_dict'])
        self.optimizer.load_state_dict(checkpoint['optimizer'])
        self.logger.info('resumed from epoch %d', checkpoint['epoch'])
