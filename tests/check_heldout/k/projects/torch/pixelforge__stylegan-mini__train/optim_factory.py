import horovod.torch as hvd
import torch


def build_optimizers(generator, discriminator, lr_g, lr_d, betas=(0.0, 0.99)):
    """Adam for both networks; the mapping network gets a 100x smaller step, as in StyleGAN."""
    g_groups = [
        {"params": generator.mapping.parameters(), "lr": lr_g * 0.01},
        {"params": [p for n, p in generator.named_parameters() if not n.startswith("mapping.")]},
    ]
    opt_g = torch.optim.Adam(g_groups, lr=lr_g, betas=betas)
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=generator.named_parameters(prefix="G"))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=lr_d, betas=betas)
    return opt_g, opt_d
