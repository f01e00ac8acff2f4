import torch
import horovod.torch as hvd


def build_optimizer(model, center_loss, cfg):
    """One Adam for the network, plain SGD-like group for the centers."""
    groups = [
        {'params': model.parameters(), 'lr': cfg['lr'], 'weight_decay': cfg['weight_decay']},
        {'params': center_loss.parameters(), 'lr': cfg['center_lr'], 'weight_decay': 0.0},
    ]
    return torch.optim.Adam(groups)


def make_distributed(optimizer, model, fp16=False):
    compression = hvd.Compression.fp16 if fp16 else hvd.Compression.none
    return hvd.DistributedOptimizer(optimizer,
                                    named_parameters=model.named_parameters(),
                                    compression=compression)


def lr_lambda(cfg):
    def f(epoch):
        if epoch < cfg['warmup_epochs']:
            return (epoch + 1) / (cfg['warmup_epochs'] + 1)
        return 0.1 ** sum(epoch >= e for e in cfg['lr_decay_epochs'])
    return f
