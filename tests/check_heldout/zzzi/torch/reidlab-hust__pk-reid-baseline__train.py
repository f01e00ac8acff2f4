"""Strong-baseline person re-ID (ResNet-50 + BNNeck) trained with Horovod.

    horovodrun -np 8 python train.py --root /data/market1501
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, Subset
import horovod.torch as hvd

from reid import Market1501, ImageDataset, DistributedPKSampler, TripletLoss
from reid.losses import cross_entropy_label_smooth
from reid.metrics import extract, gather_all, cmc_map


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument('--root', default='./data/market1501')
    p.add_argument('--pretrained', default='./weights/resnet50-0676ba61.pth')
    p.add_argument('--p', type=int, default=16, help='identities per batch (per GPU)')
    p.add_argument('--k', type=int, default=4, help='images per identity')
    p.add_argument('--base-lr', type=float, default=3.5e-4)
    p.add_argument('--warmup-epochs', type=int, default=10)
    p.add_argument('--milestones', type=int, nargs='+', default=[40, 70])
    p.add_argument('--epochs', type=int, default=120)
    p.add_argument('--eval-every', type=int, default=10)
    p.add_argument('--workers', type=int, default=4)
    p.add_argument('--output', default='./logs/market_bot')
    p.add_argument('--resume', default='')
    return p.parse_args()


class Baseline(nn.Module):
    def __init__(self, num_classes, pretrained):
        super().__init__()
        resnet = torchvision.models.resnet50(weights=None)
        if pretrained and os.path.isfile(pretrained):
            resnet.load_state_dict(torch.load(pretrained, map_location='cpu'))
        resnet.layer4[0].conv2.stride = (1, 1)
        resnet.layer4[0].downsample[0].stride = (1, 1)
        self.base = nn.Sequential(*list(resnet.children())[:-2])
        self.bnneck = nn.BatchNorm1d(2048)
        self.bnneck.bias.requires_grad_(False)
        self.classifier = nn.Linear(2048, num_classes, bias=False)

    def forward(self, x):
        g = self.base(x).mean(dim=(2, 3))
        if not self.training:
            return self.bnneck(g)
        return g, self.classifier(self.bnneck(g))


def warmup_step_lambda(warmup, milestones, gamma=0.1):
    def fn(epoch):
        factor = gamma ** sum(epoch >= m for m in milestones)
        if epoch < warmup:
            return factor * (0.1 + 0.9 * epoch / warmup)
        return factor
    return fn


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    data = Market1501(args.root)
    train_tf = T.Compose([T.Resize((256, 128)), T.RandomHorizontalFlip(), T.ToTensor(),
                          T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    test_tf = T.Compose([T.Resize((256, 128)), T.ToTensor(),
                         T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    sampler = DistributedPKSampler(data.train, args.k, args.p * args.k,
                                   num_replicas=hvd.size(), rank=hvd.rank(), seed=1)
    train_loader = DataLoader(ImageDataset(data.train, train_tf), batch_size=args.p * args.k,
                              sampler=sampler, num_workers=args.workers, drop_last=True)
    # query / gallery: each rank embeds a strided slice, gathered before ranking
    q_set = Subset(ImageDataset(data.query, test_tf), range(hvd.rank(), len(data.query), hvd.size()))
    g_set = Subset(ImageDataset(data.gallery, test_tf), range(hvd.rank(), len(data.gallery), hvd.size()))
    q_loader = DataLoader(q_set, batch_size=128, num_workers=args.workers)
    g_loader = DataLoader(g_set, batch_size=128, num_workers=args.workers)

    model = Baseline(data.num_train_pids, args.pretrained).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size(), weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, warmup_step_lambda(args.warmup_epochs, args.milestones))
    triplet = TripletLoss(margin=0.3)

    start_epoch = 0
    if args.resume and hvd.rank() == 0:
        ckpt = torch.load(args.resume, map_location='cpu')
        model.load_state_dict(ckpt['model'])
        optimizer.load_state_dict(ckpt['optimizer'])
        start_epoch = ckpt['epoch'] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name='start_epoch')
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    for _ in range(start_epoch):
        scheduler.step()

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        tic = time.time()
        for it, (imgs, pids, _) in enumerate(train_loader):
            imgs, pids = imgs.to(device), pids.to(device)
            feat, logits = model(imgs)
            loss = cross_entropy_label_smooth(logits, pids) + triplet(feat, pids)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if it % 50 == 0 and hvd.rank() == 0:
                print('epoch %d iter %d loss %.4f lr %.2e' % (epoch, it, loss.item(),
                                                               optimizer.param_groups[0]['lr']))
        scheduler.step()

        if hvd.rank() == 0:
            os.makedirs(args.output, exist_ok=True)
            torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                        'epoch': epoch}, os.path.join(args.output, 'checkpoint.pth'))
            print('epoch %d done in %.1fs' % (epoch, time.time() - tic))

        if (epoch + 1) % args.eval_every == 0 or epoch + 1 == args.epochs:
            qf, qp, qc = gather_all(*extract(model, q_loader, device), tag='query')
            gf, gp, gc = gather_all(*extract(model, g_loader, device), tag='gallery')
            if hvd.rank() == 0:
                cmc, mAP = cmc_map(qf, qp, qc, gf, gp, gc)
                print('[eval] epoch %d  mAP %.1f  R1 %.1f  R5 %.1f' % (epoch, 100 * mAP,
                                                                      100 * cmc[0], 100 * cmc[4]))


if __name__ == '__main__':
    main()
