# ESRGAN-lite: PSNR-pretrained RRDBNet fine-tuned with a patch GAN, data-parallel with horovod.
# horovodrun -np 4 python train.py --hr_dir /data/DF2K/HR_sub --batch_size 16
import os
import time

import torch
import torch.nn as nn
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from basicsr_lite.archs import PatchDiscriminator, RRDBNet
from basicsr_lite.data import PairedRandomCrop
from basicsr_lite.options import parse_options
from basicsr_lite.utils import Prefetcher, get_logger, save_networks


def main():
    opt = parse_options()
    hvd.init()
    torch.manual_seed(1234)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    use_amp = opt.fp16 and device.type == 'cuda'
    exp_dir = os.path.join(opt.out_dir, opt.name)
    if hvd.rank() == 0:
        os.makedirs(exp_dir, exist_ok=True)
    logger = get_logger('esrgan', os.path.join(exp_dir, 'train.log'), hvd.rank())

    dataset = PairedRandomCrop(opt.hr_dir, opt.patch_size, opt.scale)
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(dataset, batch_size=opt.batch_size, sampler=sampler,
                        num_workers=opt.num_workers, pin_memory=True, drop_last=True,
                        persistent_workers=opt.num_workers > 0)

    net_g = RRDBNet(scale=opt.scale).to(device)
    net_d = PatchDiscriminator().to(device)
    if opt.pretrain_g and hvd.rank() == 0:
        net_g.load_state_dict(torch.load(opt.pretrain_g, map_location='cpu'))
        logger.info('loaded PSNR model %s', opt.pretrain_g)

    opt_g = torch.optim.Adam(net_g.parameters(), lr=opt.lr_g * hvd.size(), betas=(0.9, 0.99))
    opt_d = torch.optim.Adam(net_d.parameters(), lr=opt.lr_d * hvd.size(), betas=(0.9, 0.99))

    hvd.broadcast_parameters(net_g.state_dict(), root_rank=0)
    hvd.broadcast_parameters(net_d.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_g, root_rank=0)
    hvd.broadcast_optimizer_state(opt_d, root_rank=0)
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=net_g.named_parameters(),
                                     compression=hvd.Compression.fp16 if use_amp else hvd.Compression.none)

    sched_g = torch.optim.lr_scheduler.MultiStepLR(opt_g, opt.milestones, gamma=0.5)
    sched_d = torch.optim.lr_scheduler.MultiStepLR(opt_d, opt.milestones, gamma=0.5)
    scaler = GradScaler(enabled=use_amp)
    pix_loss = nn.L1Loss()
    gan_loss = nn.BCEWithLogitsLoss()

    data = Prefetcher(loader, sampler)
    t0 = time.time()
    for it in range(1, opt.total_iters + 1):
        lr, hr = data.next()
        lr, hr = lr.to(device, non_blocking=True), hr.to(device, non_blocking=True)

        # ---- generator ----
        for p in net_d.parameters():
            p.requires_grad_(False)
        opt_g.zero_grad()
        with autocast(enabled=use_amp):
            sr = net_g(lr)
            fake_logit = net_d(sr)
            l_pix = pix_loss(sr, hr) * opt.pixel_weight
            l_gan = gan_loss(fake_logit, torch.ones_like(fake_logit)) * opt.gan_weight
            l_g = l_pix + l_gan
        scaler.scale(l_g).backward()
        opt_g.synchronize()
        scaler.unscale_(opt_g)
        with opt_g.skip_synchronize():
            scaler.step(opt_g)

        # ---- discriminator ----
        for p in net_d.parameters():
            p.requires_grad_(True)
        opt_d.zero_grad()
        with autocast(enabled=use_amp):
            real_logit = net_d(hr)
            fake_logit = net_d(sr.detach())
            l_d = 0.5 * (gan_loss(real_logit, torch.ones_like(real_logit)) +
                         gan_loss(fake_logit, torch.zeros_like(fake_logit)))
        scaler.scale(l_d).backward()
        scaler.step(opt_d)
        scaler.update()
        sched_g.step()
        sched_d.step()

        if it % opt.log_every == 0:
            stats = hvd.allreduce(torch.stack([l_pix.detach(), l_gan.detach(), l_d.detach()]).float(),
                                  name='loss_stats')
            logger.info('iter %d l_pix %.4f l_gan %.4f l_d %.4f lr %.2e %.2fs/it', it, *stats.tolist(),
                        sched_g.get_last_lr()[0], (time.time() - t0) / opt.log_every)
            t0 = time.time()
        if it % opt.save_every == 0 and hvd.rank() == 0:
            save_networks(os.path.join(exp_dir, 'models'), it, net_g, net_d)


if __name__ == '__main__':
    main()
