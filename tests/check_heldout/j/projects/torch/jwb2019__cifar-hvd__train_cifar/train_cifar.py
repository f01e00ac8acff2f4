"""CIFAR-10 ResNet-20/56, 1..N processes.

    horovodrun -np 4 python train_cifar.py --arch resnet56 --fp16-allreduce

The learning rate is the single-process one on purpose: gradients are *summed*
over workers (op=hvd.Sum), which gives the same SGD update as averaging them and
multiplying the lr by the number of workers.
"""
import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from models import ARCHS
from utils.ckpt import save_checkpoint, try_resume
from utils.options import parse_options

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def lr_at(epoch, opt):
    return opt.lr * 0.1 ** sum(epoch >= m for m in opt.milestones)


def main():
    opt = parse_options()

    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_set = datasets.CIFAR10(opt.data, train=True, transform=train_tf, download=False)
    test_set = datasets.CIFAR10(opt.data, train=False, transform=test_tf, download=False)

    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = DataLoader(train_set, batch_size=opt.batch_size, sampler=sampler, num_workers=2)
    # the test set is small: every process scores all of it
    test_loader = DataLoader(test_set, batch_size=500, shuffle=False, num_workers=2)

    net = ARCHS[opt.arch]().to(opt.device)
    sgd = torch.optim.SGD(net.parameters(), lr=opt.lr, momentum=0.9)
    sgd = hvd.DistributedOptimizer(
        sgd, named_parameters=net.named_parameters(),
        compression=hvd.Compression.fp16 if opt.fp16_allreduce else hvd.Compression.none,
        op=hvd.Sum)
    start_epoch = try_resume(opt.checkpoint, net, sgd)
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(sgd, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    for epoch in range(start_epoch, opt.epochs):
        for group in sgd.param_groups:
            group["lr"] = lr_at(epoch, opt)
        net.train()
        sampler.set_epoch(epoch)
        seen, loss_sum = 0, 0.0
        for x, y in train_loader:
            x, y = x.to(opt.device), y.to(opt.device)
            sgd.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            sgd.step()
            loss_sum += loss.item() * len(y)
            seen += len(y)
        train_loss = hvd.allreduce(torch.tensor(loss_sum / seen), name="train_loss").item()

        net.eval()
        correct = 0
        with torch.no_grad():
            for x, y in test_loader:
                correct += (net(x.to(opt.device)).argmax(1).cpu() == y).sum().item()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} lr {lr_at(epoch, opt):.4f} train loss {train_loss:.4f} "
                  f"test acc {100.0 * correct / len(test_set):.2f}%", flush=True)
        save_checkpoint({"epoch": epoch, "model": net.state_dict(), "optimizer": sgd.state_dict()},
                        opt.checkpoint)


if __name__ == "__main__":
    main()
