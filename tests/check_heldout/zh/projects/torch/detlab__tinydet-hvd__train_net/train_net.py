#!/usr/bin/env python
"""tinydet training entry (horovod).

Example:
    horovodrun -np 8 python train_net.py --config-file configs/dota_center_r48.json SOLVER.MAX_EPOCH 36
"""
import argparse
import logging
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from tinydet.config import get_cfg, merge_from_file, merge_from_list
from tinydet.data import HeatmapTiles, focal_loss
from tinydet.modeling import build_model
from tinydet.solver import WarmupMultiStep, build_optimizer

logger = logging.getLogger('tinydet')


def default_argument_parser():
    parser = argparse.ArgumentParser('tinydet')
    parser.add_argument('--config-file', default='', metavar='FILE')
    parser.add_argument('--resume', action='store_true')
    parser.add_argument('--eval-only', action='store_true')
    parser.add_argument('opts', default=None, nargs=argparse.REMAINDER)
    return parser


def detection_loss(outputs, hm, wh, mask):
    pred_hm, pred_wh = outputs
    l_hm = focal_loss(pred_hm, hm)
    l_wh = (torch.abs(pred_wh - wh) * mask.unsqueeze(1)).sum() / mask.sum().clamp(min=1)
    return {'loss_hm': l_hm, 'loss_wh': 0.1 * l_wh}


class Trainer:
    def __init__(self, cfg, device):
        self.cfg, self.device = cfg, device
        self.model = build_model(cfg).to(device)
        train_set = HeatmapTiles(cfg['DATASETS']['TRAIN'])
        self.sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
        self.loader = DataLoader(train_set, batch_size=cfg['DATALOADER']['IMS_PER_GPU'],
                                 sampler=self.sampler, num_workers=cfg['DATALOADER']['NUM_WORKERS'],
                                 drop_last=True)
        val_set = HeatmapTiles(cfg['DATASETS']['VAL'])
        self.val_loader = DataLoader(val_set, batch_size=cfg['DATALOADER']['IMS_PER_GPU'],
                                     sampler=DistributedSampler(val_set, hvd.size(), hvd.rank(), shuffle=False))
        optimizer = build_optimizer(cfg, self.model)
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=self.model.named_parameters())
        s = cfg['SOLVER']
        self.scheduler = WarmupMultiStep(self.optimizer, len(self.loader), s['STEPS'], s['WARMUP_ITERS'])
        self.start_epoch = 0

    def resume_or_load(self, resume):
        path = os.path.join(self.cfg['OUTPUT_DIR'], 'last_checkpoint.pth')
        if resume and os.path.exists(path):
            ckpt = torch.load(path, map_location='cpu')
            self.model.load_state_dict(ckpt['model'])
            self.optimizer.load_state_dict(ckpt['optimizer'])
            self.start_epoch = ckpt['epoch'] + 1
            self.scheduler.it = self.start_epoch * len(self.loader)

    def run_step(self, batch):
        img, hm, wh, mask = [t.to(self.device, non_blocking=True) for t in batch]
        losses = detection_loss(self.model(img), hm, wh, mask)
        total = sum(losses.values())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        self.scheduler.step()
        return {k: v.item() for k, v in losses.items()}

    @torch.no_grad()
    def test(self):
        self.model.eval()
        sums, hits, n = {'loss_hm': 0.0, 'loss_wh': 0.0}, 0.0, 0
        for batch in self.val_loader:
            img, hm, wh, mask = [t.to(self.device) for t in batch]
            outputs = self.model(img)
            for k, v in detection_loss(outputs, hm, wh, mask).items():
                sums[k] += v.item() * img.size(0)
            peak = outputs[0].sigmoid().flatten(2).argmax(-1)
            hits += (hm.flatten(2).gather(2, peak.unsqueeze(-1)) > 0.5).float().mean(1).sum().item()
            n += img.size(0)
        self.model.train()
        results = {k: v / max(n, 1) for k, v in sums.items()}
        results['center_hit'] = hits / max(n, 1)
        return results

    def train(self):
        max_epoch = self.cfg['SOLVER']['MAX_EPOCH']
        for epoch in range(self.start_epoch, max_epoch):
            self.sampler.set_epoch(epoch)
            for i, batch in enumerate(self.loader):
                stats = self.run_step(batch)
                if hvd.rank() == 0 and i % 50 == 0:
                    logger.info('epoch %d iter %d %s', epoch, i,
                                ' '.join(f'{k}={v:.4f}' for k, v in stats.items()))
            results = self.test()
            if hvd.rank() == 0:
                logger.info('epoch %d eval: %s', epoch, results)
                torch.save({'model': self.model.state_dict(), 'optimizer': self.optimizer.state_dict(),
                            'epoch': epoch}, os.path.join(self.cfg['OUTPUT_DIR'], 'last_checkpoint.pth'))


def setup(args):
    cfg = get_cfg()
    if args.config_file:
        merge_from_file(cfg, args.config_file)
    merge_from_list(cfg, args.opts or [])
    os.makedirs(cfg['OUTPUT_DIR'], exist_ok=True)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARN)
    torch.manual_seed(cfg['SEED'] + hvd.rank())
    return cfg


def main(args):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    cfg = setup(args)
    trainer = Trainer(cfg, device)
    if args.eval_only:
        trainer.resume_or_load(resume=True)
        logger.info('%s', trainer.test())
        return
    trainer.resume_or_load(resume=args.resume)
    trainer.train()


if __name__ == '__main__':
    main(default_argument_parser().parse_args())
