"""WaveNet vocoder training (mel-conditioned, 8-bit mu-law) -- multi-GPU with Horovod.

Usage:
    horovodrun -np 8 -H host1:4,host2:4 python train.py --data /datasets/ljspeech/wav_npy
"""
import argparse
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from utils.checkpoint import latest_checkpoint, save_checkpoint
from utils.logger import get_logger
from wavenet import WaveNet, mu_law_encode
from wavenet.data import SegmentDataset, mel_basis


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lr-decay", type=float, default=0.5)
    ap.add_argument("--decay-every", type=int, default=200000)
    ap.add_argument("--max-steps", type=int, default=1000000)
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--eval-every", type=int, default=5000)
    ap.add_argument("--save-every", type=int, default=10000)
    ap.add_argument("--grad-clip", type=float, default=1.0)
    ap.add_argument("--amp", action="store_true")
    return ap.parse_args()


class Trainer:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
        self.log = get_logger("wavenet", hvd.rank())

        fb = mel_basis()
        train_set = SegmentDataset(args.data, fb, split="train")
        val_set = SegmentDataset(args.data, fb, split="val")
        self.train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=self.train_sampler,
                                       num_workers=4, pin_memory=True, drop_last=True)
        self.val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler)

        self.model = WaveNet().to(self.device)
        optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=self.model.named_parameters(),
                                                  compression=hvd.Compression.fp16)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, args.decay_every, gamma=args.lr_decay)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
        self.step = 0

        last = latest_checkpoint(args.ckpt_dir)
        if last is not None:
            state = torch.load(last, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.scheduler.load_state_dict(state["scheduler"])
            self.step = state["step"]
            self.log.info("resumed from %s at step %d", last, self.step)

        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def loss_on(self, wav, mel):
        target = mu_law_encode(wav.to(self.device))
        inputs = F.pad(target, (1, 0))[:, :-1]
        with torch.autocast(self.device.type, enabled=self.args.amp):
            logits = self.model(inputs, mel.to(self.device))
            return F.cross_entropy(logits, target)

    def train_step(self, wav, mel):
        self.optimizer.zero_grad()
        loss = self.loss_on(wav, mel)
        self.scaler.scale(loss).backward()
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.grad_clip)
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        return loss.item()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total, batches = 0.0, 0
        for wav, mel in self.val_loader:
            total += self.loss_on(wav, mel).item()
            batches += 1
        self.model.train()
        return hvd.allreduce(torch.tensor(total / max(batches, 1)), name="val_loss").item()

    def fit(self):
        epoch = 0
        t0 = time.time()
        while self.step < self.args.max_steps:
            self.train_sampler.set_epoch(epoch)
            for wav, mel in self.train_loader:
                loss = self.train_step(wav, mel)
                self.step += 1
                if self.step % self.args.log_every == 0:
                    self.log.info("step %d loss %.4f lr %.2e %.2fs/it", self.step, loss,
                                  self.scheduler.get_last_lr()[0], (time.time() - t0) / self.args.log_every)
                    t0 = time.time()
                if self.step % self.args.eval_every == 0:
                    self.log.info("step %d val_loss %.4f", self.step, self.validate())
                if self.step % self.args.save_every == 0:
                    save_checkpoint(self.args.ckpt_dir, self.step, self.model, self.optimizer, self.scheduler)
                if self.step >= self.args.max_steps:
                    break
            epoch += 1


def main():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(1234)
    args = get_args()
    Trainer(args).fit()


if __name__ == "__main__":
    main()
