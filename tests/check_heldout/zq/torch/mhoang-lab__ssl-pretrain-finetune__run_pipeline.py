# Two-stage pipeline in one job:
#   1) self-supervised pretraining of a conv encoder as a denoising autoencoder (unlabelled images)
#   2) supervised fine-tuning of encoder + linear head on the labelled subset
#
#   horovodrun -np 4 python run_pipeline.py --unlabelled data/unlab.npy --labelled data/lab.npz
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud
import horovod.torch as hvd


class Encoder(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(2 * width, 4 * width, 3, 1, 1), nn.ReLU())
        self.out_dim = 4 * width

    def forward(self, x):
        return self.net(x)


class DenoisingAE(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.encoder = Encoder(width)
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(4 * width, 2 * width, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(2 * width, 1, 4, 2, 1))

    def forward(self, x):
        return self.decoder(self.encoder(x))


class Classifier(nn.Module):
    def __init__(self, encoder, num_classes):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(encoder.out_dim, num_classes)

    def forward(self, x):
        return self.head(F.adaptive_avg_pool2d(self.encoder(x), 1).flatten(1))


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unlabelled", required=True)
    ap.add_argument("--labelled", required=True)
    ap.add_argument("--num-classes", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--pretrain-epochs", type=int, default=20)
    ap.add_argument("--pretrain-lr", type=float, default=1e-3)
    ap.add_argument("--finetune-epochs", type=int, default=10)
    ap.add_argument("--ft-lr", type=float, default=3e-4)
    ap.add_argument("--noise", type=float, default=0.3)
    ap.add_argument("--save-dir", default="./checkpoints")
    return ap.parse_args()


def loader(dataset, batch_size, train=True):
    sampler = tud.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    return tud.DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=train), sampler


def allreduce_mean(value, name):
    return hvd.allreduce(torch.tensor(value), name=name).item()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    verbose = hvd.rank() == 0

    # ---------------- stage 1: denoising pretraining ----------------
    unlab = torch.from_numpy(np.load(args.unlabelled)).float().unsqueeze(1) / 255.0
    pre_loader, pre_sampler = loader(tud.TensorDataset(unlab), args.batch_size)

    ae = DenoisingAE().to(dev)
    pre_opt = torch.optim.Adam(ae.parameters(), lr=args.pretrain_lr * hvd.size())
    pre_opt = hvd.DistributedOptimizer(pre_opt, named_parameters=ae.named_parameters())
    hvd.broadcast_parameters(ae.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(pre_opt, root_rank=0)

    for epoch in range(args.pretrain_epochs):
        pre_sampler.set_epoch(epoch)
        ae.train()
        tic, total = time.time(), 0.0
        for (clean,) in pre_loader:
            clean = clean.to(dev)
            noisy = clean + args.noise * torch.randn_like(clean)
            loss = F.mse_loss(ae(noisy), clean)
            pre_opt.zero_grad()
            loss.backward()
            pre_opt.step()
            total += loss.item()
        mse = allreduce_mean(total / max(len(pre_loader), 1), "pretrain_mse")
        if verbose:
            print(f"pretrain {epoch:3d}  mse {mse:.5f}  {time.time() - tic:.1f}s")

    if verbose:
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save(ae.encoder.state_dict(), os.path.join(args.save_dir, "encoder_pretrained.pt"))

    # ---------------- stage 2: supervised fine-tuning ----------------
    lab = np.load(args.labelled)
    x_tr = torch.from_numpy(lab["x_train"]).float().unsqueeze(1) / 255.0
    x_te = torch.from_numpy(lab["x_test"]).float().unsqueeze(1) / 255.0
    train_loader, train_sampler = loader(tud.TensorDataset(x_tr, torch.from_numpy(lab["y_train"]).long()),
                                         args.batch_size)
    test_loader, _ = loader(tud.TensorDataset(x_te, torch.from_numpy(lab["y_test"]).long()),
                            args.batch_size, train=False)

    encoder = Encoder()
    encoder.load_state_dict(ae.encoder.state_dict())
    clf = Classifier(encoder, args.num_classes).to(dev)
    ft_opt = torch.optim.AdamW([
        {"params": clf.encoder.parameters(), "lr": 0.1 * args.ft_lr * hvd.size()},
        {"params": clf.head.parameters(), "lr": args.ft_lr * hvd.size()},
    ], weight_decay=1e-4)
    hvd.broadcast_parameters(clf.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(ft_opt, root_rank=0)

    for epoch in range(args.finetune_epochs):
        train_sampler.set_epoch(epoch)
        clf.train()
        for x, y in train_loader:
            x, y = x.to(dev), y.to(dev)
            loss = F.cross_entropy(clf(x), y)
            ft_opt.zero_grad()
            loss.backward()
            ft_opt.step()

        clf.eval()
        correct = torch.zeros(2)
        with torch.no_grad():
            for x, y in test_loader:
                pred = clf(x.to(dev)).argmax(1).cpu()
                correct += torch.tensor([(pred == y).sum().item(), y.numel()], dtype=torch.float32)
        correct = hvd.allreduce(correct, op=hvd.Sum, name="ft_acc")
        if verbose:
            print(f"finetune {epoch:3d}  test acc {correct[0] / correct[1]:.4f}")
            torch.save({"epoch": epoch, "model": clf.state_dict()},
                       os.path.join(args.save_dir, "classifier.pt"))


if __name__ == "__main__":
    main()
