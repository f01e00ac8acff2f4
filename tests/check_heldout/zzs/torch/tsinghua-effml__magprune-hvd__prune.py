"""Iterative magnitude pruning (train -> prune -> fine-tune) of VGG-11 on CIFAR-10 with Horovod.

Masks are re-applied after every optimizer step so pruned weights stay at zero.
"""
import argparse

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from magprune import apply_masks, global_magnitude_masks, save_bundle, sparsity
from magprune.models import VGG

parser = argparse.ArgumentParser()
parser.add_argument("--data-dir", default="/scratch/datasets/cifar10")
parser.add_argument("--rounds", type=int, default=5, help="prune/fine-tune rounds")
parser.add_argument("--rate", type=float, default=0.2, help="fraction of the remaining weights pruned per round")
parser.add_argument("--epochs-per-round", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--save", default="checkpoints/vgg11_imp")
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"

norm = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))
train_set = datasets.CIFAR10(args.data_dir, train=True, transform=transforms.Compose(
    [transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
test_set = datasets.CIFAR10(args.data_dir, train=False, transform=transforms.Compose([transforms.ToTensor(), norm]))
sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.local_rank())
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, num_workers=4)
test_loader = DataLoader(test_set, batch_size=500)

model = VGG().to(device)
opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9, weight_decay=1e-4)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)


def test():
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
    return correct / len(test_set)


masks = global_magnitude_masks(model, 0.0)
epoch = 0
for rnd in range(args.rounds + 1):
    for _ in range(args.epochs_per_round):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            apply_masks(model, masks)
        epoch += 1
    acc = test()
    if hvd.rank() == 0:
        print(f"round {rnd} sparsity {sparsity(masks):.3f} test acc {acc:.4f}")
    save_bundle(f"{args.save}/round{rnd}.pt", model, masks, opt, round=rnd, acc=acc)
    if rnd < args.rounds:
        # every rank prunes the same synchronized weights, so the masks agree
        masks = global_magnitude_masks(model, 1 - (1 - args.rate) ** (rnd + 1), old_masks=masks)
        apply_masks(model, masks)
