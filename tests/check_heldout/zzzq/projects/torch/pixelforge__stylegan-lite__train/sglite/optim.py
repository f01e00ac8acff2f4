import torch
import horovod.torch as hvd


def build_optimizers(cfg, G, D):
    # lazy regularisation: adjust lr/betas of D for the r1 interval (as in stylegan2)
    c = cfg.d_reg_every / (cfg.d_reg_every + 1)
    opt_g = torch.optim.Adam(G.parameters(), lr=cfg.g_lr, betas=cfg.betas)
    opt_d = torch.optim.Adam(D.parameters(), lr=cfg.d_lr * c,
                             betas=(cfg.betas[0] ** c, cfg.betas[1] ** c))
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=G.named_parameters(prefix="G"))
    opt_d = hvd.DistributedOptimizer(opt_d, named_parameters=D.named_parameters(prefix="D"))
    return opt_g, opt_d
