import torch
import horovod.torch as hvd


def build_optimizers(model, lr, temp_lr, weight_decay):
    """Towers get AdamW through Horovod; the temperature gets its own tiny SGD
    (it is one scalar and does not need weight decay or Adam moments)."""
    tower_params = [(n, p) for n, p in model.named_parameters() if n != "logit_scale"]
    tower_opt = torch.optim.AdamW([p for _, p in tower_params], lr=lr, weight_decay=weight_decay)
    tower_opt = hvd.DistributedOptimizer(tower_opt, named_parameters=tower_params)
    temp_opt = torch.optim.SGD([model.logit_scale], lr=temp_lr)
    return tower_opt, temp_opt
