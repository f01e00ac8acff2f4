import horovod.torch as hvd

from .nets import Discriminator, Generator, init_weights


def build_models(cfg, device):
    """Build G and D and put every worker on the same starting point."""
    netG = Generator(cfg.z_dim, cfg.g_ch)
    netD = Discriminator(cfg.d_ch)
    netG.apply(init_weights)
    netD.apply(init_weights)
    netG.to(device)
    netD.to(device)
    # G's initial weights come from rank 0; D is initialised right after seeding, so it
    # starts the same on every worker anyway.
    hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
    return netG, netD
