import horovod.torch as hvd
import torch


def create_optimizer(model, lr, weight_decay=0.01):
    no_decay = ("bias", "layer_norm.weight", "layernorm_embedding.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
         "weight_decay": weight_decay},
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
         "weight_decay": 0.0},
    ]
    # Horovod: scale the learning rate with the number of workers.
    optimizer = torch.optim.AdamW(groups, lr=lr * hvd.size())
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
