"""RED-CNN low-dose CT denoising, data parallel over horovod workers."""
import argparse
import dataclasses
import json
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
import horovod.torch as hvd

from ctdenoise import TrainConfig
from ctdenoise.data import split_for_worker
from ctdenoise.distributed import gather_psnr, is_root, psnr, sync_model
from ctdenoise.nets import REDCNN


def load_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainConfig):
        parser.add_argument('--' + f.name.replace('_', '-'), type=type(f.default), default=f.default)
    parser.add_argument('--resume', default='')
    ns = vars(parser.parse_args())
    resume = ns.pop('resume')
    return TrainConfig(**ns), resume


def main():
    cfg, resume = load_config()
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device('cuda', hvd.local_rank())
    else:
        device = torch.device('cpu')

    train_ds = split_for_worker(cfg.data_dir, 'train', hvd.rank(), hvd.size(), cfg.seed)
    val_ds = split_for_worker(cfg.data_dir, 'val', hvd.rank(), hvd.size(), cfg.seed, shuffle=False)
    train_dl = DataLoader(train_ds, batch_size=cfg.micro_batch, shuffle=True,
                          num_workers=cfg.workers, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=1, num_workers=cfg.workers)

    model = REDCNN().to(device)
    start_epoch = 0
    if resume and is_root():
        ckpt = torch.load(resume, map_location='cpu')
        model.load_state_dict(ckpt['model'])
        start_epoch = ckpt['epoch'] + 1
    sync_model(model)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name='start_epoch')

    # global batch = micro_batch * accum_steps * size
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.base_lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=cfg.accum_steps)
    criterion = nn.MSELoss()

    if is_root():
        os.makedirs(cfg.out_dir, exist_ok=True)
        with open(os.path.join(cfg.out_dir, 'config.json'), 'w') as f:
            json.dump(cfg.to_dict(), f, indent=2)

    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        optimizer.zero_grad()
        usable = len(train_dl) // cfg.accum_steps * cfg.accum_steps
        for i, (x, y) in enumerate(train_dl):
            if i == usable:
                break
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y) / cfg.accum_steps
            loss.backward()
            if (i + 1) % cfg.accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()

        model.eval()
        with torch.no_grad():
            scores = [psnr(model(x.to(device)).clamp(0, 1), y.to(device)) for x, y in val_dl]
        val_psnr = gather_psnr(scores)
        if is_root():
            print(f'epoch {epoch:03d}  val PSNR {val_psnr:.2f} dB', flush=True)
            if (epoch + 1) % cfg.ckpt_every == 0:
                torch.save({'model': model.state_dict(), 'epoch': epoch},
                           os.path.join(cfg.out_dir, f'redcnn_e{epoch + 1}.pt'))


if __name__ == '__main__':
    main()
