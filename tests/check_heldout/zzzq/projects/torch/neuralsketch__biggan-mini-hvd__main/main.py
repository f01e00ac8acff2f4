# BigGAN-mini: class-conditional BigGAN at 32x32 with horovod
import copy
import os

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from bgm.opts import get_args
from bgm.hvdutil import init_distributed, mean_over_workers
from bgm.loaders import get_loaders
from bgm.models import Generator, Discriminator
from bgm.metrics import FIDLike
from bgm import checkpoint


def run(args):
    device = init_distributed()
    torch.manual_seed(hvd.rank())
    loaders = get_loaders(args)

    G, D = Generator(args).to(device), Discriminator(args).to(device)
    G_ema = copy.deepcopy(G)
    scale = hvd.size()
    G_optim = torch.optim.Adam(G.parameters(), lr=args.G_lr * scale, betas=(0.0, 0.999), eps=1e-6)
    D_optim = torch.optim.Adam(D.parameters(), lr=args.D_lr * scale, betas=(0.0, 0.999), eps=1e-6)
    G_optim = hvd.DistributedOptimizer(G_optim, named_parameters=G.named_parameters())
    if args.sync_d:
        D_optim = hvd.DistributedOptimizer(D_optim, named_parameters=D.named_parameters())

    state = {"epoch": 0, "itr": 0, "best_fid": 1e9}
    if args.resume and hvd.rank() == 0:
        state = checkpoint.load_weights(args, {"G": G, "D": D, "G_ema": G_ema}, {"G": G_optim, "D": D_optim})
    state = hvd.broadcast_object(state, root_rank=0)
    for net in (G, D, G_ema):
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(G_optim, root_rank=0)
    hvd.broadcast_optimizer_state(D_optim, root_rank=0)

    fid = FIDLike(D.features, args.dim_z, args.n_classes, device)
    fixed_z = torch.randn(100, args.dim_z, generator=torch.Generator().manual_seed(0)).to(device)
    fixed_y = torch.arange(100).to(device) % args.n_classes

    for epoch in range(state["epoch"], args.num_epochs):
        loaders["train"].sampler.set_epoch(epoch)
        G.train(); D.train()
        run_d = run_g = 0.0
        nb = 0
        for x, y in loaders["train"]:
            x, y = x.to(device), y.to(device)
            for _ in range(args.num_D_steps):
                D_optim.zero_grad()
                z = torch.randn(x.size(0), args.dim_z, device=device)
                with torch.no_grad():
                    fake = G(z, y)
                d_loss = F.relu(1.0 - D(x, y)).mean() + F.relu(1.0 + D(fake, y)).mean()
                d_loss.backward()
                D_optim.step()
            for p in D.parameters():
                p.requires_grad = False
            G_optim.zero_grad()
            z = torch.randn(x.size(0), args.dim_z, device=device)
            g_loss = -D(G(z, y), y).mean()
            g_loss.backward()
            G_optim.step()
            for p in D.parameters():
                p.requires_grad = True
            state["itr"] += 1
            decay = 0.0 if state["itr"] < args.ema_start else args.ema_decay
            with torch.no_grad():
                for pe, pg in zip(G_ema.parameters(), G.parameters()):
                    pe.copy_(pe * decay + pg * (1 - decay))
            run_d += d_loss.item(); run_g += g_loss.item(); nb += 1

        d_avg = mean_over_workers(run_d / nb, "d_loss")
        g_avg = mean_over_workers(run_g / nb, "g_loss")
        G_ema.eval()
        score = fid(G_ema, loaders["val"], args.eval_batches)
        G_ema.train()
        if hvd.rank() == 0:
            print("epoch %d itr %d | D %.4f G %.4f | FID~ %.2f" % (epoch, state["itr"], d_avg, g_avg, score))
            os.makedirs(args.samples_root, exist_ok=True)
            with torch.no_grad():
                G_ema.eval()
                ims = G_ema(fixed_z, fixed_y)
                G_ema.train()
            torchvision.utils.save_image(ims.float(), "%s/samples%d.jpg" % (args.samples_root, epoch),
                                         nrow=10, normalize=True)
            state["epoch"] = epoch + 1
            nets, opts = {"G": G, "D": D, "G_ema": G_ema}, {"G": G_optim, "D": D_optim}
            checkpoint.save_weights(args, nets, opts, state, "last")
            if score < state["best_fid"]:
                state["best_fid"] = score
                checkpoint.save_weights(args, nets, opts, state, "best")


if __name__ == "__main__":
    run(get_args())
