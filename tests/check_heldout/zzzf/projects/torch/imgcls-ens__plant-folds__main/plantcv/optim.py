import torch
import horovod.torch as hvd


def build_optimizer(model, cfg):
    # lr / momentum from the single-GPU baseline (bs 32)
    sgd = torch.optim.SGD(model.parameters(), lr=cfg.LR, momentum=0.9,
                          weight_decay=cfg.WD, nesterov=True)
    opt = hvd.DistributedOptimizer(sgd, named_parameters=model.named_parameters(),
                                   compression=hvd.Compression.fp16 if cfg.FP16_ALLREDUCE else hvd.Compression.none)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=cfg.MILESTONES, gamma=0.1)
    return opt, sched
