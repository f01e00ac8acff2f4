import argparse
import logging

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from seaice.data import SeaIceScenes
from seaice.dist_utils import init_distributed
from seaice.model import UNet
from seaice.trainer import SegTrainer

log = logging.getLogger(__name__)


def get_args():
    ap = argparse.ArgumentParser(description='AI4Arctic sea-ice concentration U-Net')
    ap.add_argument('--data', default='/scratch/ai4arctic/npz')
    ap.add_argument('--epochs', type=int, default=60)
    ap.add_argument('--batch-size', type=int, default=12, help='scenes per GPU')
    ap.add_argument('--lr', type=float, default=3e-4, help='single-GPU learning rate')
    ap.add_argument('--no-amp', action='store_true')
    ap.add_argument('--ckpt-dir', default='checkpoints')
    return ap.parse_args()


def main():
    args = get_args()
    init_distributed()
    rank, world = hvd.rank(), hvd.size()
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.ERROR,
                        format=f'[rank {rank}/{world}] %(asctime)s %(message)s')
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    train_set = SeaIceScenes(args.data, 'train', augment=True)
    val_set = SeaIceScenes(args.data, 'val')
    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, args.batch_size, sampler=train_sampler, num_workers=4, drop_last=True)
    val_loader = DataLoader(val_set, args.batch_size, sampler=val_sampler, num_workers=2)

    model = UNet().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * world, weight_decay=1e-2)
    trainer = SegTrainer(model, optimizer, device, args.ckpt_dir, amp=not args.no_amp)

    best = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        train_loss = trainer.train_one_epoch(train_loader)
        acc = trainer.validate(val_loader)
        log.info('epoch %d train_loss %.4f val_pixel_acc %.4f', epoch, train_loss, acc)
        if acc > best:
            best = acc
            trainer.save(epoch)


if __name__ == '__main__':
    main()
