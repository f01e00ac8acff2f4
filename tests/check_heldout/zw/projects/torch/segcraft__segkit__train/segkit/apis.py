import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader

from .datasets import DistributedSampler


def build_dataloader(dataset, samples_per_gpu, workers_per_gpu, shuffle=True):
    sampler = DistributedSampler(dataset, hvd.size(), hvd.rank(), shuffle=shuffle)
    return DataLoader(dataset, batch_size=samples_per_gpu if shuffle else 1, sampler=sampler,
                      num_workers=workers_per_gpu, pin_memory=True, drop_last=shuffle)


@torch.no_grad()
def multi_gpu_test(model, data_loader, num_classes, ignore_index=255):
    device = next(model.parameters()).device
    model.eval()
    hist = torch.zeros(num_classes, num_classes, dtype=torch.float64)
    for img, seg in data_loader:
        pred = model(img.to(device)).argmax(1).cpu().flatten()
        seg = seg.flatten()
        keep = seg != ignore_index
        hist += torch.bincount(seg[keep] * num_classes + pred[keep], minlength=num_classes ** 2).reshape(
            num_classes, num_classes).double()
    hist = hvd.allreduce(hist, op=hvd.Sum, name='confusion')
    iou = hist.diag() / (hist.sum(0) + hist.sum(1) - hist.diag()).clamp(min=1)
    model.train()
    return {'mIoU': iou.mean().item(), 'aAcc': (hist.diag().sum() / hist.sum().clamp(min=1)).item()}


def train_segmentor(model, datasets, cfg, val_dataset=None, timestamp=None, logger=None):
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    model.to(device)
    data_loaders = [build_dataloader(ds, cfg['data']['samples_per_gpu'], cfg['data']['workers_per_gpu'])
                    for ds in datasets]
    opt_cfg = dict(cfg['optimizer'])
    optimizer = getattr(torch.optim, opt_cfg.pop('type'))(model.parameters(), **opt_cfg)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root=0)

    val_loader = None
    if val_dataset is not None:
        val_loader = build_dataloader(val_dataset, 1, cfg['data']['workers_per_gpu'], shuffle=False)

    base_lr, max_iters, poly = cfg['optimizer']['lr'], cfg['max_iters'], cfg['lr_config']
    it, loader_iter = 0, iter(data_loaders[0])
    model.train()
    while it < max_iters:
        try:
            img, seg = next(loader_iter)
        except StopIteration:
            loader_iter = iter(data_loaders[0])
            img, seg = next(loader_iter)
        lr = (base_lr - poly['min_lr']) * (1 - it / max_iters) ** poly['power'] + poly['min_lr']
        for g in optimizer.param_groups:
            g['lr'] = lr
        loss = F.cross_entropy(model(img.to(device)), seg.to(device), ignore_index=cfg['ignore_index'])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        if hvd.rank() == 0 and it % cfg['log_interval'] == 0:
            logger.info(f'Iter [{it}/{max_iters}] lr: {lr:.3e}, loss: {loss.item():.4f}')
        if hvd.rank() == 0 and (it % cfg['checkpoint_interval'] == 0 or it == max_iters):
            torch.save({'meta': {'iter': it, 'time': timestamp}, 'state_dict': model.state_dict(),
                        'optimizer': optimizer.state_dict()}, os.path.join(cfg['work_dir'], f'iter_{it}.pth'))
        if val_loader is not None and it % cfg['eval_interval'] == 0:
            results = multi_gpu_test(model, val_loader, cfg['num_classes'], cfg['ignore_index'])
            if hvd.rank() == 0:
                logger.info(f'Iter(val) [{it}] ' + ', '.join(f'{k}: {v:.4f}' for k, v in results.items()))
