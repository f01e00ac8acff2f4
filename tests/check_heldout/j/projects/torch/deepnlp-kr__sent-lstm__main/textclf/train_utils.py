import os

import torch
import horovod.torch as hvd


def adjust_learning_rate(optimizer, epoch, args):
    """Step decay: divide the lr by 10 every ``args.lr_step`` epochs."""
    lr = args.lr * (0.1 ** (epoch // args.lr_step))
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    return lr


def metric_average(val, name):
    tensor = torch.tensor(val)
    avg_tensor = hvd.allreduce(tensor, name=name)
    return avg_tensor.item()


def save_model(model, vocab, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "itos": vocab.itos}, path)
