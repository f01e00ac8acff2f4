"""the function every horovod worker runs (launched from launch.py through horovod.run)"""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def _fake_mnist(n, img_dim):
    g = torch.Generator().manual_seed(7)
    return TensorDataset(torch.rand(n, img_dim, generator=g) * 2 - 1)


def run_worker(opts):
    import horovod.torch as hvd
    from hgan.models import Generator, Discriminator
    from hgan.utils import sync_models, averaged, save_snapshot

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(1000 + hvd.rank())  # different z on every worker

    ds = _fake_mnist(opts["n_samples"], opts["img_dim"])
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(ds, batch_size=opts["batch_size"], sampler=sampler, drop_last=True)

    G = Generator(opts["z_dim"], opts["img_dim"]).to(dev)
    D = Discriminator(opts["img_dim"]).to(dev)
    k = hvd.size() if opts["scale_lr"] else 1
    opt_g = torch.optim.Adam(G.parameters(), lr=opts["g_lr"] * k, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=opts["d_lr"] * k, betas=(0.5, 0.999))
    sync_models((G, opt_g), (D, opt_d))

    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=G.named_parameters(), op=hvd.Average)

    step, epoch = 0, 0
    while step < opts["steps"]:
        sampler.set_epoch(epoch)
        for (real,) in loader:
            real = real.to(dev)
            bs = real.size(0)
            ones, zeros = torch.ones(bs, 1, device=dev), torch.zeros(bs, 1, device=dev)

            # --- D step
            z = torch.randn(bs, opts["z_dim"], device=dev)
            fake = G(z).detach()
            d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(fake), zeros)
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()

            # --- G step
            if step % opts["n_critic"] == 0:
                z = torch.randn(bs, opts["z_dim"], device=dev)
                g_loss = F.binary_cross_entropy_with_logits(D(G(z)), ones)
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()

            if step % 100 == 0:
                dl, gl = averaged(d_loss.item(), "d_loss"), averaged(g_loss.item(), "g_loss")
                if hvd.rank() == 0:
                    print("step %d  D %.4f  G %.4f" % (step, dl, gl), flush=True)
            step += 1
            if step % opts["save_every"] == 0:
                save_snapshot(opts["out_dir"], step, G, D)
            if step >= opts["steps"]:
                break
        epoch += 1
    save_snapshot(opts["out_dir"], step, G, D)
    return step
