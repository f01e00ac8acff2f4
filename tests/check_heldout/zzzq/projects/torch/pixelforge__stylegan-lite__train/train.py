import copy
import os

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from sglite.config import from_cli
from sglite.hvd_helpers import init_horovod, rank0, sync_models
from sglite.datasets import build_loader
from sglite.networks import Generator, Discriminator
from sglite.optim import build_optimizers
from sglite.metrics import RunningMean, pixel_diversity


def r1_penalty(D, real):
    real = real.detach().requires_grad_(True)
    out = D(real)
    g, = torch.autograd.grad(out.sum(), real, create_graph=True)
    return g.square().flatten(1).sum(1).mean()


def toggle(m, on):
    for p in m.parameters():
        p.requires_grad_(on)


cfg = from_cli()
device = init_horovod(cfg.seed)
loader, sampler = build_loader(cfg, hvd.size(), hvd.rank())

G = Generator(cfg).to(device)
D = Discriminator(cfg).to(device)
G_ema = copy.deepcopy(G).eval() if cfg.ema else None
opt_g, opt_d = build_optimizers(cfg, G, D)
sync_models(G, D)
if G_ema is not None:
    sync_models(G_ema)
hvd.broadcast_optimizer_state(opt_g, 0)
hvd.broadcast_optimizer_state(opt_d, 0)

ema_beta = 0.5 ** (cfg.batch * hvd.size() / (cfg.ema_kimg * 1000))
fixed_z = torch.randn(36, cfg.z_dim, generator=torch.Generator().manual_seed(123)).to(device)
if rank0():
    os.makedirs(cfg.out, exist_ok=True)

step = 0
for epoch in range(cfg.epochs):
    sampler.set_epoch(epoch)
    m_d, m_g, m_r1 = RunningMean("d"), RunningMean("g"), RunningMean("r1")
    for real in loader:
        real = real.to(device)
        # --- D ---
        toggle(D, True)
        z = torch.randn(real.size(0), cfg.z_dim, device=device)
        fake = G(z).detach()
        d_loss = F.softplus(D(fake)).mean() + F.softplus(-D(real)).mean()
        if step % cfg.d_reg_every == 0:
            r1 = r1_penalty(D, real)
            d_loss = d_loss + cfg.r1_gamma / 2 * r1 * cfg.d_reg_every
            m_r1.update(r1.item())
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        # --- G ---
        toggle(D, False)
        z = torch.randn(real.size(0), cfg.z_dim, device=device)
        g_loss = F.softplus(-D(G(z))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        if G_ema is not None:
            with torch.no_grad():
                for pe, p in zip(G_ema.parameters(), G.parameters()):
                    pe.copy_(p.lerp(pe, ema_beta))
        m_d.update(d_loss.item(), real.size(0))
        m_g.update(g_loss.item(), real.size(0))
        step += 1
        if step % cfg.iters_per_epoch == 0:
            break

    Gs = G_ema if G_ema is not None else G
    div = pixel_diversity(Gs, 16, cfg.z_dim, device)
    d_avg, g_avg, r1_avg = m_d.value(), m_g.value(), m_r1.value()
    if rank0():
        print(f"epoch {epoch} step {step} D {d_avg:.3f} G {g_avg:.3f} R1 {r1_avg:.3f} div {div:.3f}")
        with torch.no_grad():
            grid = Gs(fixed_z)
        torchvision.utils.save_image(grid * 0.5 + 0.5, os.path.join(cfg.out, f"fakes{epoch:03d}.png"), nrow=6)

    state = {"G": G.state_dict(), "D": D.state_dict(),
             "G_ema": G_ema.state_dict() if G_ema is not None else None,
             "opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(), "epoch": epoch, "step": step}
    torch.save(state, os.path.join(cfg.out, f"network-snapshot-{epoch:03d}.pt"))
