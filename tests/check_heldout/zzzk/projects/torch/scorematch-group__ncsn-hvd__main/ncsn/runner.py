import copy
import logging
import time

import torch

from .datasets import data_transform
from .distributed import reduce_mean
from .models import anneal_dsm_loss
from . import checkpoint


class EMAHelper(object):
    def __init__(self, mu=0.999):
        self.mu = mu
        self.shadow = {}

    def register(self, module):
        for name, param in module.named_parameters():
            if param.requires_grad:
                self.shadow[name] = param.data.clone()

    def update(self, module):
        for name, param in module.named_parameters():
            if param.requires_grad:
                self.shadow[name].data = (1.0 - self.mu) * param.data + self.mu * self.shadow[name].data

    def ema_copy(self, module):
        module_copy = copy.deepcopy(module)
        for name, param in module_copy.named_parameters():
            if param.requires_grad:
                param.data.copy_(self.shadow[name].data)
        return module_copy

    def state_dict(self):
        return self.shadow


class NCSNRunner(object):
    def __init__(self, args, config, score, optimizer):
        self.args = args
        self.config = config
        self.score = score
        self.optimizer = optimizer
        self.ema_helper = None
        if config.model.ema:
            self.ema_helper = EMAHelper(mu=config.model.ema_rate)
            self.ema_helper.register(score)

    def train(self, train_loader, test_loader, start_epoch, step):
        config = self.config
        sigmas = self.score.sigmas
        test_iter = iter(test_loader)
        for epoch in range(start_epoch, config.training.n_epochs):
            train_loader.sampler_for_epoch.set_epoch(epoch)
            t0 = time.time()
            for i, (X, y) in enumerate(train_loader):
                self.score.train()
                step += 1
                X = data_transform(config, X.to(config.device))
                loss = anneal_dsm_loss(self.score, X, sigmas, None, config.training.anneal_power)

                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                if self.ema_helper is not None:
                    self.ema_helper.update(self.score)

                if step % config.training.log_freq == 0:
                    loss_avg = reduce_mean(loss, "train_loss")
                    logging.info("step: {}, loss: {:.4f}, {:.2f}s".format(step, loss_avg, time.time() - t0))

                if step % config.training.eval_freq == 0:
                    test_score = self.ema_helper.ema_copy(self.score) if self.ema_helper else self.score
                    test_score.eval()
                    try:
                        test_X, _ = next(test_iter)
                    except StopIteration:
                        test_iter = iter(test_loader)
                        test_X, _ = next(test_iter)
                    test_X = data_transform(config, test_X.to(config.device))
                    with torch.no_grad():
                        test_loss = anneal_dsm_loss(test_score, test_X, sigmas, None, config.training.anneal_power)
                    logging.info("step: {}, test_loss: {:.4f}".format(step, reduce_mean(test_loss, "test_loss")))
                    del test_score

                if step % config.training.snapshot_freq == 0:
                    checkpoint.save(self.args.log_path, self.score, self.optimizer, self.ema_helper, epoch, step)

                if step >= config.training.n_iters:
                    return
