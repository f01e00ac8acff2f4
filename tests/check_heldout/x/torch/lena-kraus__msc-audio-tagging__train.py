# MSc thesis, audio tagging on FSD-mini (log-mel crops precomputed by scripts/make_features.py)
# run: horovodrun -np 8 -H node1:4,node2:4 python train.py --name cnn6_bs32 --epochs 40
import os
import time

import horovod.torch as hvd
import torch
import torch.nn as nn

from audiotag.config import get_args
from audiotag.data import build_loader
from audiotag.model import CNN6
from audiotag.utils import AverageMeter, is_main, load_checkpoint, mean_average_precision, save_checkpoint

args = get_args()

hvd.init()
torch.manual_seed(args.seed)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

run_dir = os.path.join(args.runs, args.name)
train_loader, train_sampler = build_loader(args.data, "train", args.batch_size, hvd.size(), hvd.rank(), args.workers)
val_loader, _ = build_loader(args.data, "val", args.batch_size, hvd.size(), hvd.rank(), args.workers)

model = CNN6(n_mels=args.n_mels, n_classes=args.n_classes).to(device)
criterion = nn.BCEWithLogitsLoss()
# lr scaled linearly with the number of workers (Goyal et al.), see thesis sec. 3.2
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), weight_decay=args.wd)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

start_epoch, best_map = 0, 0.0
ckpt_path = os.path.join(run_dir, "last.pt") if args.resume == "auto" else args.resume
if ckpt_path and os.path.exists(ckpt_path) and hvd.rank() == 0:
    start_epoch, best_map = load_checkpoint(ckpt_path, model, optimizer)
    print(f"resumed from {ckpt_path} at epoch {start_epoch}")


def validate():
    model.eval()
    scores, targets = [], []
    with torch.no_grad():
        for x, y in val_loader:
            scores.append(torch.sigmoid(model(x.to(device))).cpu())
            targets.append(y)
    # mAP is not a mean over batches: gather every rank's predictions, then score on all of them
    scores = hvd.allgather(torch.cat(scores), name="val_scores")
    targets = hvd.allgather(torch.cat(targets), name="val_targets")
    return mean_average_precision(scores, targets)


for epoch in range(start_epoch, args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    loss_meter, t0 = AverageMeter(), time.time()
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        loss_meter.update(loss.item(), x.size(0))
        if step % args.log_every == 0 and hvd.rank() == 0:
            print(f"ep {epoch} it {step}/{len(train_loader)} loss {loss_meter.avg:.4f}", flush=True)

    val_map = validate()
    is_best = val_map > best_map
    best_map = max(best_map, val_map)
    if hvd.rank() == 0:
        print(f"epoch {epoch} done in {time.time() - t0:.0f}s  val mAP {val_map:.4f} (best {best_map:.4f})")
    if is_main():
        save_checkpoint(run_dir, model, optimizer, epoch, best_map, is_best)
