import horovod.torch as hvd
import torch


def build_optimizer(encoder, crf, cfg):
    lr = cfg.lr * hvd.size()
    groups = [{"params": encoder.parameters(), "lr": lr},
              {"params": crf.parameters(), "lr": lr * cfg.crf_lr_mult}]
    opt = torch.optim.Adam(groups)
    return hvd.DistributedOptimizer(opt, named_parameters=encoder.named_parameters())
