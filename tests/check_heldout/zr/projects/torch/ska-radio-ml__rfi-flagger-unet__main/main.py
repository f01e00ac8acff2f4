# RFI flagging U-Net for MeerKAT/SKA-Low waterfall patches.
# sbatch scripts/train_rfi.sh  (srun -n $SLURM_NTASKS python main.py --data $SCRATCH/rfi)
import argparse
import os

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from rfi import hvd_utils
from rfi.dataset import SpectrogramPatches, files_for_rank
from rfi.unet import SmallUNet
from rfi.logging_utils import CSVLog

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/rfi")
parser.add_argument("--out", default="out/unet")
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--micro-batch", type=int, default=8)
parser.add_argument("--accum", type=int, default=4, help="micro-batches per optimizer step")
parser.add_argument("--lr", type=float, default=3e-4, help="lr for one GPU at micro-batch*accum")
parser.add_argument("--pos-weight", type=float, default=5.0)


def confusion(logits, mask):
    p, m = logits > 0, mask > 0.5
    return torch.stack([(p & m).sum(), (p & ~m).sum(), (~p & m).sum()]).double().cpu()


def main(args):
    device = hvd_utils.setup()
    size, rank = hvd_utils.world()

    train_ds = SpectrogramPatches(files_for_rank(args.data, "train", size, rank), augment=True)
    val_ds = SpectrogramPatches(files_for_rank(args.data, "val", size, rank))
    g = torch.Generator().manual_seed(rank)
    train_dl = DataLoader(train_ds, batch_size=args.micro_batch, shuffle=True, drop_last=True, generator=g)
    val_dl = DataLoader(val_ds, batch_size=32)

    model = SmallUNet().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr * size)
    hvd_utils.sync_initial_state(model, opt)
    opt = hvd_utils.wrap_optimizer(opt, model, args.accum)
    pw = torch.tensor([args.pos_weight], device=device)
    log = CSVLog(os.path.join(args.out, "metrics.csv"), enabled=hvd_utils.is_root())

    for epoch in range(args.epochs):
        model.train()
        steps_per_epoch = len(train_dl) // args.accum
        it = iter(train_dl)
        for step in range(steps_per_epoch):
            opt.zero_grad()
            for _ in range(args.accum):
                x, m = next(it)
                x, m = x.to(device), m.to(device)
                loss = F.binary_cross_entropy_with_logits(model(x), m, pos_weight=pw) / args.accum
                loss.backward()
            opt.step()

        model.eval()
        counts = torch.zeros(3, dtype=torch.float64)
        with torch.no_grad():
            for x, m in val_dl:
                counts += confusion(model(x.to(device)), m.to(device))
        tp, fp, fn = hvd_utils.sum_counts(counts, "val_confusion").tolist()
        f1 = 2 * tp / max(2 * tp + fp + fn, 1.0)
        log.write(epoch=epoch, last_loss=round(loss.item() * args.accum, 4), val_f1=round(f1, 4),
                  val_precision=round(tp / max(tp + fp, 1), 4), val_recall=round(tp / max(tp + fn, 1), 4))
        if hvd_utils.is_root():
            torch.save(model.state_dict(), os.path.join(args.out, f"unet_epoch{epoch:02d}.pt"))


if __name__ == "__main__":
    main(parser.parse_args())
