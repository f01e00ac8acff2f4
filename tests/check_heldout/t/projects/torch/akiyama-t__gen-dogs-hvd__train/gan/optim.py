import torch
import horovod.torch as hvd


def build_optimizers(netG, netD, lr_g, lr_d, betas=(0.5, 0.999)):
    """Adam for both nets, lr scaled with the number of workers (global batch = batch * size).

    Only D sees the (sharded) real images, so only D's gradients need averaging; G is driven by
    noise and by D, whose weights are kept in sync by the allreduce."""
    opt_d = torch.optim.Adam(netD.parameters(), lr=lr_d * hvd.size(), betas=betas)
    opt_d = hvd.DistributedOptimizer(opt_d, named_parameters=netD.named_parameters(), op=hvd.Average)
    opt_g = torch.optim.Adam(netG.parameters(), lr=lr_g * hvd.size(), betas=betas)
    return opt_g, opt_d


def set_requires_grad(net, flag):
    for p in net.parameters():
        p.requires_grad_(flag)
