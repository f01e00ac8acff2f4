"""Elastic ResNet training on CIFAR-10.

    horovodrun -np 8 --min-np 4 --host-discovery-script discover.sh python train_elastic.py --config cfg.json
"""
import argparse

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from elastic_cifar.config import TrainConfig
from elastic_cifar.data import build_datasets, train_loader, eval_loader
from elastic_cifar.model import build_model
from elastic_cifar.utils import get_logger, scaled_lr, set_lr, lr_at, save_checkpoint


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None, help="json file with TrainConfig fields")
    ap.add_argument("--epochs", type=int, default=None)
    return ap.parse_args()


class ElasticTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.log = get_logger()
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if self.device.type == "cuda":
            torch.cuda.set_device(hvd.local_rank())
        torch.manual_seed(cfg.seed)

        self.train_set, self.test_set = build_datasets(cfg.data_dir)
        self.loader, self.sampler = train_loader(self.train_set, cfg.batch_size, cfg.seed)
        self.model = build_model(cfg.arch).to(self.device)
        opt = torch.optim.SGD(self.model.parameters(), lr=scaled_lr(cfg.base_lr), momentum=cfg.momentum,
                              weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())

        self.state = hvd.elastic.TorchState(model=self.model, optimizer=self.optimizer,
                                            train_sampler=self.sampler, epoch=0, batch=0)
        self.state.register_reset_callbacks([self.on_reset])

    def on_reset(self):
        set_lr(self.optimizer, scaled_lr(self.cfg.base_lr))
        self.log.info("workers changed, now %d", hvd.size())

    def evaluate(self):
        self.model.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in eval_loader(self.test_set, 256):
                x, y = x.to(self.device), y.to(self.device)
                correct += (self.model(x).argmax(1) == y).sum().item()
                total += y.size(0)
        return correct / max(total, 1)

    def train_epoch(self, state):
        self.model.train()
        n = len(self.loader)
        for idx, (x, y) in enumerate(self.loader):
            set_lr(self.optimizer, lr_at(self.cfg, state.epoch, idx, n))
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            state.batch = idx
            state.train_sampler.record_batch(idx, self.cfg.batch_size)
            if idx % self.cfg.commit_every == 0:
                state.commit()
        return loss.item()

    def fit(self):
        @hvd.elastic.run
        def run(state):
            for state.epoch in range(state.epoch, self.cfg.epochs):
                loss = self.train_epoch(state)
                acc = self.evaluate()
                self.log.info("epoch %d loss %.4f test acc %.4f (%d workers)", state.epoch, loss, acc, hvd.size())
                save_checkpoint(state, self.cfg)
                state.batch = 0
                state.train_sampler.set_epoch(state.epoch + 1)
                state.commit()

        run(self.state)


def main():
    args = parse()
    hvd.init()
    cfg = TrainConfig.from_json(args.config) if args.config else TrainConfig()
    if args.epochs is not None:
        cfg.epochs = args.epochs
    ElasticTrainer(cfg).fit()


if __name__ == "__main__":
    main()
