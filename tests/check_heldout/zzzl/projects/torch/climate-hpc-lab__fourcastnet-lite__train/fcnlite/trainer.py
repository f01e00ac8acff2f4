import os
import time

import torch
import torch.nn.functional as F

from fcnlite.metrics import ValidMeter


class Trainer:
    def __init__(self, params, model, optimizer, scheduler, train_loader, valid_loader, train_sampler,
                 device, is_master):
        self.params = params
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.train_sampler = train_sampler
        self.device = device
        self.is_master = is_master
        self.epoch = 0
        self.ckpt_path = os.path.join(params.exp_dir, "training_checkpoints", "ckpt.tar")

    def log(self, msg):
        if self.is_master and self.params.log_to_screen:
            print(msg, flush=True)

    def train_one_epoch(self):
        self.model.train()
        tic = time.time()
        for i, (inp, tar) in enumerate(self.train_loader):
            inp, tar = inp.to(self.device), tar.to(self.device)
            self.optimizer.zero_grad()
            # multi-step finetuning: roll the model forward n_future+1 steps
            h = inp
            loss = 0.0
            for k in range(tar.shape[1]):
                h = self.model(h)
                loss = loss + F.mse_loss(h, tar[:, k])
            loss.backward()
            self.optimizer.step()
        return time.time() - tic, loss.item()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        meter = ValidMeter(len(self.params.out_channels), self.device)
        for inp, tar in self.valid_loader:
            inp, tar = inp.to(self.device), tar.to(self.device)
            gen = self.model(inp)
            meter.update(F.mse_loss(gen, tar[:, 0]), gen, tar[:, 0])
        return meter.compute()

    def save_checkpoint(self, path=None):
        path = path or self.ckpt_path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"epoch": self.epoch, "model_state": self.model.state_dict(),
                    "optimizer_state_dict": self.optimizer.state_dict(),
                    "scheduler_state_dict": self.scheduler.state_dict()}, path)

    def restore_checkpoint(self, path):
        ck = torch.load(path, map_location="cpu", weights_only=False)
        self.model.load_state_dict(ck["model_state"])
        self.optimizer.load_state_dict(ck["optimizer_state_dict"])
        self.scheduler.load_state_dict(ck["scheduler_state_dict"])
        self.epoch = ck["epoch"]

    def fit(self):
        best = float("inf")
        for epoch in range(self.epoch, self.params.max_epochs):
            self.epoch = epoch
            if self.train_sampler is not None:
                self.train_sampler.set_epoch(epoch)
            t, last = self.train_one_epoch()
            logs = self.validate()
            self.scheduler.step()
            self.log("Epoch %d  %.1fs  train %.4f  valid %.4f  z500 acc %.3f" % (
                epoch + 1, t, last, logs["valid_loss"], logs["acc"][0]))
            if self.is_master:
                self.save_checkpoint()
                if logs["valid_loss"] <= best:
                    best = logs["valid_loss"]
                    self.save_checkpoint(self.ckpt_path.replace("ckpt.tar", "best_ckpt.tar"))
