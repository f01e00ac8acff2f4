"""BiSeNetV2 on BDD100K drivable-area, horovod.

    horovodrun -np 4 python hvd_train.py --root /data/bdd100k
    python hvd_train.py --np 2 --dummy          # launches its own workers
The pipeline imports `train` from here (see pipelines/nightly.py).
"""
import os
import random
import time

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from bisenet_bdd.config import NUM_CLASSES
from bisenet_bdd.data import get_loaders
from bisenet_bdd.dist import all_reduce_sum, reduce_mean, is_master
from bisenet_bdd.model import BiSeNetV2Lite


def set_lr(optim, lr):
    for g in optim.param_groups:
        g["lr"] = lr


@torch.no_grad()
def evaluate(model, loader, n_classes, device):
    model.eval()
    hist = torch.zeros(n_classes, n_classes, dtype=torch.float64)
    for img, lbl in loader:
        pred = model(img.to(device)).argmax(1).cpu()
        k = lbl < n_classes
        hist += torch.bincount(lbl[k] * n_classes + pred[k], minlength=n_classes ** 2).view(n_classes, n_classes)
    hist = all_reduce_sum(hist, name="val_hist")
    iou = hist.diag() / (hist.sum(0) + hist.sum(1) - hist.diag()).clamp(min=1)
    model.train()
    return iou.mean().item()


def train(opts):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    random.seed(opts.seed + hvd.rank())
    np.random.seed(opts.seed + hvd.rank())
    torch.manual_seed(opts.seed)

    n_classes = NUM_CLASSES[opts.task]
    train_loader, train_sampler, val_loader = get_loaders(opts, n_classes)
    model = BiSeNetV2Lite(n_classes).to(device)

    lr = opts.lr * hvd.size()
    head_params = list(model.head.parameters()) + list(model.aux_head.parameters())
    optim_backbone = torch.optim.SGD(model.backbone.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    optim_head = torch.optim.SGD(head_params, lr=lr * opts.head_lr_mult, momentum=0.9, weight_decay=5e-4)
    optim_backbone = hvd.DistributedOptimizer(optim_backbone,
                                              named_parameters=model.backbone.named_parameters())

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optim_backbone, root_rank=0)
    hvd.broadcast_optimizer_state(optim_head, root_rank=0)

    best, it, epoch = 0.0, 0, 0
    smooth_loss = None
    t0 = time.time()
    while it < opts.iters:
        train_sampler.set_epoch(epoch)
        for img, lbl in train_loader:
            img, lbl = img.to(device), lbl.to(device)
            factor = (1 - it / opts.iters) ** 0.9
            set_lr(optim_backbone, lr * factor)
            set_lr(optim_head, lr * opts.head_lr_mult * factor)
            out, aux = model(img)
            loss = F.cross_entropy(out, lbl, ignore_index=255) + 0.4 * F.cross_entropy(aux, lbl, ignore_index=255)
            optim_backbone.zero_grad()
            optim_head.zero_grad()
            loss.backward()
            optim_backbone.step()
            optim_head.step()

            l = reduce_mean(loss.detach(), name="train_loss").item()
            smooth_loss = l if smooth_loss is None else 0.98 * smooth_loss + 0.02 * l
            if is_master() and it % opts.log_every == 0:
                print(f"it {it:6d} loss {smooth_loss:.4f} lr {lr * factor:.5f} {time.time() - t0:.0f}s", flush=True)
            it += 1
            if it % opts.eval_every == 0 or it == opts.iters:
                miou = evaluate(model, val_loader, n_classes, device)
                if is_master():
                    print(f"it {it} val mIoU {miou:.4f} (best {best:.4f})", flush=True)
                    os.makedirs(opts.ckpt_dir, exist_ok=True)
                    torch.save(model.state_dict(), os.path.join(opts.ckpt_dir, "last.pth"))
                    if miou > best:
                        best = miou
                        torch.save(model.state_dict(), os.path.join(opts.ckpt_dir, "best.pth"))
            if it >= opts.iters:
                break
        epoch += 1
    return best


if __name__ == "__main__":
    from bisenet_bdd.launcher import launch
    launch(train)
