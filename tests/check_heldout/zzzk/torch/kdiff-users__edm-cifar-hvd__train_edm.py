#!/usr/bin/env python
"""EDM (Karras et al. 2022) preconditioned denoiser, horovod data-parallel.

--lr is given for a global batch of --ref_batch images and is rescaled linearly to the
real global batch (batch * workers).
"""
import os, sys, time, json, argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def get_opts():
    ap = argparse.ArgumentParser()
    ap.add_argument('--train_npz', default='datasets/cifar10-32x32.npz')
    ap.add_argument('--run_dir', default='training-runs/edm-hvd')
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--lr', type=float, default=2e-4)
    ap.add_argument('--ref_batch', type=int, default=64)
    ap.add_argument('--kimg', type=int, default=200000)
    ap.add_argument('--ema_halflife_kimg', type=float, default=500)
    ap.add_argument('--fp16', type=int, default=1)
    ap.add_argument('--snap', type=int, default=2000, help='steps between snapshots')
    ap.add_argument('--eval_every', type=int, default=1000)
    ap.add_argument('--seed', type=int, default=0)
    return ap.parse_args()


class Denoiser(nn.Module):
    """tiny stand-in for the song-unet; predicts F_theta"""
    def __init__(self, ch=64):
        super().__init__()
        self.emb = nn.Linear(1, ch)
        self.c0 = nn.Conv2d(3, ch, 3, padding=1)
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1)
        self.c3 = nn.Conv2d(ch, 3, 3, padding=1)
        self.feat = nn.Linear(ch, 128)

    def forward(self, x, c_noise, return_feat=False):
        e = self.emb(c_noise[:, None])[:, :, None, None]
        h = F.silu(self.c0(x) + e)
        h = F.silu(self.c1(h))
        h = F.silu(self.c2(h)) + h
        if return_feat:
            return self.feat(h.mean((2, 3)))
        return self.c3(h)


def precond(net, x, sigma, sigma_data=0.5):
    sigma = sigma.view(-1, 1, 1, 1)
    c_skip = sigma_data ** 2 / (sigma ** 2 + sigma_data ** 2)
    c_out = sigma * sigma_data / (sigma ** 2 + sigma_data ** 2).sqrt()
    c_in = 1 / (sigma_data ** 2 + sigma ** 2).sqrt()
    c_noise = sigma.log().flatten() / 4
    return c_skip * x + c_out * net(c_in * x, c_noise)


def edm_loss(net, y, P_mean=-1.2, P_std=1.2, sigma_data=0.5):
    rnd = torch.randn([y.shape[0], 1, 1, 1], device=y.device)
    sigma = (rnd * P_std + P_mean).exp()
    weight = (sigma ** 2 + sigma_data ** 2) / (sigma * sigma_data) ** 2
    D = precond(net, y + torch.randn_like(y) * sigma, sigma)
    return (weight * (D - y) ** 2).mean()


def my_shard(n, epoch, seed):
    # every worker draws the same permutation, then takes its stride
    perm = np.random.RandomState(seed + epoch).permutation(n)
    per = n // hvd.size()
    return perm[hvd.rank() * per:(hvd.rank() + 1) * per]


def main():
    o = get_opts()
    hvd.init()
    dev = torch.device('cpu')
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device('cuda', hvd.local_rank())
    torch.manual_seed(o.seed + hvd.rank())

    data = np.load(o.train_npz)
    images = torch.from_numpy(data['x']).permute(0, 3, 1, 2).float() / 127.5 - 1   # N,3,32,32
    n_img = images.shape[0]

    net = Denoiser().to(dev)
    ema = Denoiser().to(dev).requires_grad_(False)
    ema.load_state_dict(net.state_dict())
    global_batch = o.batch * hvd.size()
    opt = torch.optim.Adam(net.parameters(), lr=o.lr * global_batch / o.ref_batch, betas=(0.9, 0.999), eps=1e-8)

    step, cur_nimg = 0, 0
    ckpt = os.path.join(o.run_dir, 'training-state.pt')
    if hvd.rank() == 0 and os.path.isfile(ckpt):
        st = torch.load(ckpt, map_location='cpu')
        net.load_state_dict(st['net']); ema.load_state_dict(st['ema']); opt.load_state_dict(st['opt'])
        step, cur_nimg = st['step'], st['cur_nimg']
        print('resumed from', ckpt, 'step', step)
    step, cur_nimg = hvd.broadcast_object((step, cur_nimg), root_rank=0, name='resume')
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_parameters(ema.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=bool(o.fp16) and dev.type == 'cuda')

    epoch = cur_nimg // n_img
    stats = {'loss_sum': 0.0, 'n': 0}
    tick = time.time()
    while cur_nimg < o.kimg * 1000:
        idx = my_shard(n_img, epoch, o.seed)
        for b in range(len(idx) // o.batch):
            y = images[idx[b * o.batch:(b + 1) * o.batch]].to(dev)
            with torch.autocast(dev.type, enabled=bool(o.fp16) and dev.type == 'cuda'):
                loss = edm_loss(net, y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            for p in net.parameters():
                if p.grad is not None:
                    torch.nan_to_num(p.grad, nan=0, posinf=1e5, neginf=-1e5, out=p.grad)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()

            cur_nimg += global_batch
            step += 1
            beta = 0.5 ** (global_batch / max(o.ema_halflife_kimg * 1000, 1e-8))
            with torch.no_grad():
                for pe, pn in zip(ema.parameters(), net.parameters()):
                    pe.copy_(pn.detach().lerp(pe, beta))

            stats['loss_sum'] += loss.item() * y.shape[0]
            stats['n'] += y.shape[0]

            if step % o.eval_every == 0:
                tot = hvd.allreduce(torch.tensor([stats['loss_sum'], float(stats['n'])]), op=hvd.Sum, name='loss_stats')
                mean_loss = (tot[0] / tot[1]).item()
                # feature statistics of the ema net on a fixed probe batch, gathered over workers
                with torch.no_grad():
                    probe = images[my_shard(n_img, 10 ** 6, 123)[:64]].to(dev)
                    feats = ema(probe, torch.zeros(probe.shape[0], device=dev), return_feat=True)
                feats = hvd.allgather(feats.float().cpu(), name='probe_feats')
                if hvd.rank() == 0:
                    mu = feats.mean(0)
                    cov = torch.cov(feats.T)
                    print(json.dumps({'step': step, 'kimg': cur_nimg / 1e3, 'loss': round(mean_loss, 5),
                                      'feat_mu_norm': mu.norm().item(), 'feat_tr_cov': cov.trace().item(),
                                      'sec': round(time.time() - tick, 1)}), flush=True)
                stats = {'loss_sum': 0.0, 'n': 0}
                tick = time.time()

            if step % o.snap == 0 and hvd.rank() == 0:
                os.makedirs(o.run_dir, exist_ok=True)
                torch.save({'net': net.state_dict(), 'ema': ema.state_dict(), 'opt': opt.state_dict(),
                            'step': step, 'cur_nimg': cur_nimg}, ckpt)
            if cur_nimg >= o.kimg * 1000:
                break
        epoch += 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
