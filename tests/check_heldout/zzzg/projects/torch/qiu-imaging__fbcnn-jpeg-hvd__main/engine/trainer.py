import logging

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

from datasets import JpegPairs, build_val_set
from .checkpoint import save_checkpoint
from .dist import is_master, make_loader, reduce_mean

log = logging.getLogger(__name__)


class ARNet(nn.Module):
    def __init__(self, ch=48, blocks=6):
        super().__init__()
        body = [nn.Conv2d(3, ch, 3, padding=1), nn.PReLU()]
        for _ in range(blocks):
            body += [nn.Conv2d(ch, ch, 3, padding=1), nn.PReLU()]
        body.append(nn.Conv2d(ch, 3, 3, padding=1))
        self.body = nn.Sequential(*body)

    def forward(self, x):
        return x + self.body(x)


def psnr_per_image(a, b):
    mse = ((a.clamp(0, 1) - b) ** 2).flatten(1).mean(1)
    return -10 * torch.log10(mse + 1e-10)


def run(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader, sampler = make_loader(JpegPairs(args.train_root, args.patch), args.batch_size)
    val_loader, _ = make_loader(build_val_set(args.val_root, args.val_quality), 1, shuffle=False, workers=1)

    model = ARNet().to(device)
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(args.ema_decay))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-4)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best = 0.0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for step, (lq, gt) in enumerate(train_loader):
            lq, gt = lq.to(device), gt.to(device)
            loss = F.l1_loss(model(lq), gt)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            ema.update_parameters(model)
            if step % args.log_every == 0 and is_master():
                log.info("ep %d step %d l1 %.4f", epoch, step, loss.item())

        ema.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for lq, gt in val_loader:
                total += psnr_per_image(ema(lq.to(device)).cpu(), gt).sum().item()
                count += gt.size(0)
        val_psnr = reduce_mean(total / max(count, 1), "val_psnr")
        best = max(best, val_psnr)
        if is_master():
            log.info("ep %d  q%d PSNR %.3f (best %.3f)", epoch, args.val_quality, val_psnr, best)
        save_checkpoint(args.out_dir, epoch, model, ema, optimizer, best)
