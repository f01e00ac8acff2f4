"""Bayes by Backprop on Fashion-MNIST, data-parallel with Horovod."""
import argparse

import torch
import horovod.torch as hvd

from bbb.data import get_loaders
from bbb.layers import BayesMLP
from bbb.optim import build_optimizers
from bbb.trainer import Trainer


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="~/datasets")
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--rho-lr", type=float, default=1e-4)
    ap.add_argument("--hidden", type=int, default=400)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--save-every", type=int, default=5)
    ap.add_argument("--no-cuda", action="store_true")
    return ap.parse_args()


if __name__ == "__main__":
    args = get_args()
    hvd.init()
    torch.manual_seed(42)
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    train_loader, test_loader, sampler = get_loaders(args.data, args.batch_size, hvd.rank(), hvd.size())
    model = BayesMLP(hidden=args.hidden).to(device)
    mu_opt, rho_opt = build_optimizers(model, args.lr, args.rho_lr)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(mu_opt, root_rank=0)

    trainer = Trainer(model, [mu_opt, rho_opt], train_loader, test_loader, sampler,
                      n_train=len(train_loader.dataset), device=device, ckpt_dir=args.ckpt_dir)
    for epoch in range(1, args.epochs + 1):
        loss = trainer.train_epoch(epoch)
        metrics = trainer.evaluate()
        if hvd.rank() == 0:
            print(f"[{epoch:03d}] loss={loss:.4f} test_nll={metrics['nll']:.4f} test_acc={metrics['acc']:.4f}")
        if epoch % args.save_every == 0:
            trainer.save_checkpoint(epoch)
