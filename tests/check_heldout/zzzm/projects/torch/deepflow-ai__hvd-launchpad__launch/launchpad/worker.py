"""The function horovod.run ships to every worker process."""
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from launchpad import dist
from launchpad.data import loaders
from launchpad.models import ARCHS


def train(opts):
    torch.manual_seed(opts.seed)
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda")
    else:
        torch.set_num_threads(1)

    train_loader, train_sampler, val_loader = loaders(opts, hvd.rank(), hvd.size())
    model = ARCHS[opts.arch]().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=opts.base_lr * hvd.size(),
                                momentum=opts.momentum, weight_decay=opts.wd)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best = {"val_acc": 0.0, "epoch": -1}
    for epoch in range(opts.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()

        model.eval()
        correct, n = 0, 0
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                correct += (model(x).argmax(1) == y).sum().item()
                n += y.numel()
        # DistributedSampler pads the val set, so every rank has the same n
        val_acc = dist.metric_average(correct / max(n, 1), "val_acc")
        if dist.is_main():
            print("epoch %d val_acc %.4f" % (epoch, val_acc))
        if val_acc > best["val_acc"]:
            best = {"val_acc": val_acc, "epoch": epoch}
            dist.save_on_main({"model": model.state_dict(), "epoch": epoch, "val_acc": val_acc},
                              opts.ckpt_dir, "best.pt")
    return best
