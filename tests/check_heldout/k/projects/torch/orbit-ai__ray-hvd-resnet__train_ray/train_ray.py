"""CIFAR-10 ResNet on a Ray cluster with Horovod workers.

    ray start --head ... ; python train_ray.py --num-workers 8 --address auto
"""
import argparse
import os

import horovod.torch as hvd
import ray
import torch
from horovod.ray import RayExecutor

from rayhvd import resnet20, resnet56
from rayhvd.datasets import get_cifar10_loaders
from rayhvd.engine import evaluate, train_epoch

ARCHS = {"resnet20": resnet20, "resnet56": resnet56}


def train_func(config):
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.set_num_threads(config["threads"])

    train_loader, test_loader, sampler = get_cifar10_loaders(
        config["data_dir"], config["batch_size"], hvd.rank(), hvd.size())

    net = ARCHS[config["arch"]]().to(device)
    sgd = torch.optim.SGD(net.parameters(), lr=config["lr"] * hvd.size(),
                          momentum=0.9, weight_decay=5e-4, nesterov=True)
    sgd = hvd.DistributedOptimizer(sgd, named_parameters=net.named_parameters(),
                                   compression=hvd.Compression.fp16)
    milestones = [int(config["epochs"] * f) for f in (0.5, 0.75)]
    sched = torch.optim.lr_scheduler.MultiStepLR(sgd, milestones=milestones, gamma=0.1)

    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(sgd, root_rank=0)

    history = []
    for epoch in range(config["epochs"]):
        sampler.set_epoch(epoch)
        loss_sum, seen = train_epoch(net, train_loader, sgd, device, clip_norm=config["clip_norm"])
        sched.step()
        correct, total, test_loss = evaluate(net, test_loader, device)
        stats = hvd.allreduce(torch.tensor([loss_sum, seen, correct, total, test_loss],
                                           dtype=torch.float64), op=hvd.Sum, name="epoch_stats")
        train_loss = (stats[0] / stats[1]).item()
        test_acc = (stats[2] / stats[3]).item()
        history.append((epoch, train_loss, test_acc))
        if hvd.rank() == 0:
            print(f"[epoch {epoch:3d}] loss={train_loss:.4f} "
                  f"test_loss={(stats[4] / stats[3]).item():.4f} test_acc={test_acc:.4f}", flush=True)
            os.makedirs(config["out_dir"], exist_ok=True)
            torch.save({"epoch": epoch, "net": net.state_dict(), "opt": sgd.state_dict()},
                       os.path.join(config["out_dir"], "checkpoint.pt"))
    return history


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default=None)
    parser.add_argument("--num-workers", type=int, default=4)
    parser.add_argument("--cpus-per-worker", type=int, default=4)
    parser.add_argument("--no-gpu", action="store_true")
    parser.add_argument("--arch", choices=sorted(ARCHS), default="resnet56")
    parser.add_argument("--data-dir", default="/mnt/shared/cifar10")
    parser.add_argument("--out-dir", default="/mnt/shared/runs/resnet_ray")
    parser.add_argument("--epochs", type=int, default=160)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--clip-norm", type=float, default=5.0)
    args = parser.parse_args()

    ray.init(address=args.address)
    settings = RayExecutor.create_settings(timeout_s=120)
    executor = RayExecutor(settings, num_workers=args.num_workers,
                           cpus_per_worker=args.cpus_per_worker, use_gpu=not args.no_gpu)
    executor.start()
    config = dict(threads=args.cpus_per_worker, data_dir=args.data_dir, out_dir=args.out_dir,
                  arch=args.arch, epochs=args.epochs, batch_size=args.batch_size,
                  lr=args.lr, clip_norm=args.clip_norm)
    results = executor.run(train_func, kwargs={"config": config})
    executor.shutdown()
    final_epoch, final_loss, final_acc = results[0][-1]
    print(f"done: epoch {final_epoch} loss {final_loss:.4f} acc {final_acc:.4f}")


if __name__ == "__main__":
    main()
