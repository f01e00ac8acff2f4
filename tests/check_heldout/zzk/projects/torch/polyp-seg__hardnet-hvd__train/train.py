import argparse
import os
from datetime import datetime

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from lib import utils
from lib.dataloader import PolypDataset
from lib.losses import dice_score, structure_loss
from lib.model import HarDNetSegLite


def train(train_loader, model, optimizer, scheduler, epoch, opt):
    model.train()
    size_rates = [0.75, 1, 1.25]
    loss_record = utils.AvgMeter()
    for i, (images, gts) in enumerate(train_loader, start=1):
        for rate in size_rates:
            optimizer.zero_grad()
            images_, gts_ = images.to(opt.device), gts.to(opt.device)
            trainsize = int(round(opt.trainsize * rate / 32) * 32)
            if rate != 1:
                images_ = F.interpolate(images_, size=(trainsize, trainsize), mode="bilinear", align_corners=True)
                gts_ = F.interpolate(gts_, size=(trainsize, trainsize), mode="bilinear", align_corners=True)
            pred = model(images_)
            loss = structure_loss(pred, gts_)
            loss.backward()
            optimizer.step()
            if rate == 1:
                logged = utils.reduce_dict({"loss": loss})
                loss_record.update(logged["loss"].item(), opt.batchsize)
        scheduler.step()
        if (i % 20 == 0 or i == len(train_loader)) and utils.is_main_process():
            print(f"{datetime.now()} Epoch [{epoch:03d}/{opt.epoch:03d}], Step [{i:04d}/{len(train_loader):04d}], "
                  f"loss: {loss_record.show():.4f}, lr: {optimizer.param_groups[0]['lr']:.6f}")


@torch.no_grad()
def test(model, test_loader, device):
    model.eval()
    dices = []
    for images, gts in test_loader:
        dices.append(dice_score(model(images.to(device)), gts.to(device)).item())
    return sum(dices) / max(len(dices), 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epoch", type=int, default=100)
    parser.add_argument("--lr", type=float, default=1e-4, help="learning rate of one worker")
    parser.add_argument("--batchsize", type=int, default=8)
    parser.add_argument("--trainsize", type=int, default=352)
    parser.add_argument("--warmup_iters", type=int, default=200)
    parser.add_argument("--train_path", type=str, default="./data/TrainDataset")
    parser.add_argument("--test_path", type=str, default="./data/TestDataset/Kvasir")
    parser.add_argument("--train_save", type=str, default="HarDNet-Lite")
    parser.add_argument("--resume", type=str, default="")
    parser.add_argument("--test_only", action="store_true")
    opt = parser.parse_args()

    utils.init_distributed_mode(opt)
    utils.seed_everything(2021)

    model = HarDNetSegLite().to(opt.device)

    train_data = PolypDataset(opt.train_path, opt.trainsize, train=True)
    test_data = PolypDataset(opt.test_path, opt.trainsize, train=False)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_data, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = torch.utils.data.DataLoader(train_data, batch_size=opt.batchsize, sampler=train_sampler,
                                               num_workers=4, pin_memory=True, drop_last=True)
    test_loader = torch.utils.data.DataLoader(test_data, batch_size=1, shuffle=False)

    optimizer = torch.optim.AdamW(model.parameters(), lr=opt.lr * hvd.size(), weight_decay=1e-4)
    if opt.distributed:
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    total_iters = opt.epoch * len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda it: (it + 1) / opt.warmup_iters if it < opt.warmup_iters else (1 - it / total_iters) ** 0.9,
    )

    start_epoch = 1
    if opt.resume:
        ckpt = torch.load(opt.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if opt.test_only:
        if utils.is_main_process():
            print(f"Kvasir dice: {test(model, test_loader, opt.device):.4f}")
        raise SystemExit(0)

    best = 0.0
    save_path = os.path.join("snapshots", opt.train_save)
    for epoch in range(start_epoch, opt.epoch + 1):
        train_sampler.set_epoch(epoch)
        train(train_loader, model, optimizer, scheduler, epoch, opt)
        if utils.is_main_process():
            dice = test(model, test_loader, opt.device)
            print(f"epoch {epoch}: Kvasir dice {dice:.4f} (best {max(best, dice):.4f})")
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "scheduler": scheduler.state_dict(), "epoch": epoch}
            utils.save_on_master(state, os.path.join(save_path, "last.pth"))
            if dice > best:
                best = dice
                utils.save_on_master(state, os.path.join(save_path, "best.pth"))
