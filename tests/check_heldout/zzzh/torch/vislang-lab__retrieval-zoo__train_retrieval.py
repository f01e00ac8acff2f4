import argparse
import os
import random

import numpy as np
import torch
import horovod.torch as hvd

from rz import DualEncoder
from rz.data import build_loaders
from rz.evaluator import RetrievalEvaluator
from rz.losses import global_infonce


def get_parser():
    parser = argparse.ArgumentParser("retrieval-zoo: image-text dual encoder")
    parser.add_argument("--data_root", default="./data/flickr30k")
    parser.add_argument("--output_dir", default="./checkpoints")
    parser.add_argument("--batch_size", type=int, default=64, help="per GPU")
    parser.add_argument("--eval_batch_size", type=int, default=512)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--warmup_epochs", type=int, default=1)
    parser.add_argument("--num_epochs", type=int, default=30)
    parser.add_argument("--max_len", type=int, default=24)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--grad_clip", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    return parser


class Trainer:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.vocab, self.train_loader, val_loader = build_loaders(args)
        self.evaluator = RetrievalEvaluator(val_loader)
        img_dim = self.train_loader.dataset.feats.shape[1]
        self.model = DualEncoder(img_dim, len(self.vocab)).to(self.device)
        self.base_lr = args.lr * hvd.size()
        opt = torch.optim.Adam(self.model.parameters(), lr=self.base_lr)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.best_r1 = 0.0

    def adjust_lr(self, epoch, it):
        n = len(self.train_loader)
        if epoch < self.args.warmup_epochs:
            lr = self.base_lr * (epoch * n + it + 1) / (self.args.warmup_epochs * n)
        else:
            lr = self.base_lr * 0.5 ** ((epoch - self.args.warmup_epochs) // 10)
        for g in self.optimizer.param_groups:
            g["lr"] = lr

    def train_epoch(self, epoch):
        self.train_loader.sampler.set_epoch(epoch)
        self.model.train()
        for it, (feats, ids) in enumerate(self.train_loader):
            self.adjust_lr(epoch, it)
            img = self.model.encode_image(feats.to(self.device))
            txt = self.model.encode_text(ids.to(self.device))
            loss = global_infonce(img, txt, self.model.log_inv_tau)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.grad_clip)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            if hvd.rank() == 0 and it % 50 == 0:
                print(f"[ep {epoch} it {it}] loss {loss.item():.4f}", flush=True)

    def fit(self):
        for epoch in range(self.args.num_epochs):
            self.train_epoch(epoch)
            metrics = self.evaluator(self.model, self.device)
            rsum = sum(metrics.values())
            if hvd.rank() == 0:
                print(f"epoch {epoch}: {metrics} rsum {rsum:.2f}", flush=True)
                if metrics["R@1"] > self.best_r1:
                    self.best_r1 = metrics["R@1"]
                    os.makedirs(self.args.output_dir, exist_ok=True)
                    torch.save({"model": self.model.state_dict(), "epoch": epoch,
                                "vocab": self.vocab.itos},
                               os.path.join(self.args.output_dir, "model_best.pth"))


def main():
    args = get_parser().parse_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    Trainer(args).fit()


if __name__ == "__main__":
    main()
