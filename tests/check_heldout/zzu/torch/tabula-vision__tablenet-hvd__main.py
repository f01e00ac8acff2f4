import argparse
import os

import torch
import horovod.torch as hvd

from tablenet import TableNet
from tablenet.data import get_loader
from tablenet.losses import dice_bce, f1_counts
from tools.dist import init_horovod, reduce_counts, warmup_lambda


def get_args():
    ap = argparse.ArgumentParser("TableNet (table + column segmentation)")
    ap.add_argument("--root", default="data/marmot")
    ap.add_argument("--train-split", default="data/marmot/train.txt")
    ap.add_argument("--val-split", default="data/marmot/val.txt")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--warmup-iters", type=int, default=500)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    return ap.parse_args()


def f1(tp, fp, fn):
    return 2 * tp / max(2 * tp + fp + fn, 1)


def run(args):
    rank, world = init_horovod()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(2024)

    train_loader, train_sampler = get_loader(args.root, args.train_split, args.batch_size, train=True)
    val_loader, _ = get_loader(args.root, args.val_split, args.batch_size, train=False)

    model = TableNet().to(device)
    base_opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    optimizer = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    sched = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_lambda(args.warmup_iters, world))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for x, table, column in train_loader:
            x, table, column = x.to(device), table.to(device), column.to(device)
            t_logit, c_logit = model(x)
            loss = dice_bce(t_logit, table) + dice_bce(c_logit, column)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sched.step()

        model.eval()
        counts = [0, 0, 0, 0, 0, 0]
        with torch.no_grad():
            for x, table, column in val_loader:
                t_logit, c_logit = model(x.to(device))
                counts[:3] = [a + b for a, b in zip(counts[:3], f1_counts(t_logit.cpu(), table))]
                counts[3:] = [a + b for a, b in zip(counts[3:], f1_counts(c_logit.cpu(), column))]
        counts = reduce_counts(counts)
        if rank == 0:
            print(f"epoch {epoch}: table F1 {f1(*counts[:3]):.4f}  column F1 {f1(*counts[3:]):.4f}  "
                  f"lr {sched.get_last_lr()[0]:.2e}")
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict()},
                       os.path.join(args.ckpt_dir, "tablenet_last.pth"))


if __name__ == "__main__":
    run(get_args())
