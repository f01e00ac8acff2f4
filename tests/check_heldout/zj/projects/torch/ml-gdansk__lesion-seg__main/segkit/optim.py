import horovod.torch as hvd
import torch


def build_optimizers(model, ocfg, world_size=1):
    """Separate optimizers so that the pretrained encoder can be frozen / use its own lr."""
    lr = ocfg["lr"] * world_size
    backbone_opt = torch.optim.SGD(model.backbone.parameters(), lr=lr * ocfg["backbone_lr_mult"],
                                   momentum=0.9, weight_decay=ocfg["weight_decay"])
    decoder_opt = torch.optim.SGD(model.decoder.parameters(), lr=lr, momentum=0.9,
                                  weight_decay=ocfg["weight_decay"])
    decoder_opt = hvd.DistributedOptimizer(
        decoder_opt, named_parameters=model.decoder.named_parameters(prefix="decoder"))
    return {"backbone": backbone_opt, "decoder": decoder_opt}


def poly_lr(optimizers, base_lrs, it, max_it, power=0.9):
    factor = (1 - it / max_it) ** power
    for name, opt in optimizers.items():
        for g in opt.param_groups:
            g["lr"] = base_lrs[name] * factor
