import itertools
import torch
import horovod.torch as hvd


def build_optimizers(model, cfg):
    """two param groups w/ different lr: networks vs. pseudo-inputs of the prior"""
    net_params = itertools.chain(model.encoder.named_parameters(prefix="encoder"),
                                 model.decoder.named_parameters(prefix="decoder"))
    net_params = list(net_params)
    opt = torch.optim.Adam([p for _, p in net_params], lr=cfg.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=net_params)
    # pseudo-inputs get their own (faster) Adam
    prior_opt = torch.optim.Adam([model.pseudo], lr=cfg.prior_lr * hvd.size())
    return opt, prior_opt
