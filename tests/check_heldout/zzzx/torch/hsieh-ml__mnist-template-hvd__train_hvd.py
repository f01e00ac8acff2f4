# single-file version of my pytorch-template setup, for the cluster (horovodrun -np 4 python train_hvd.py)
import os, json, argparse, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

DEFAULT_CONFIG = {
    "name": "mnist_cnn",
    "arch": {"type": "Net", "args": {"dropout": 0.25}},
    "optimizer": {"type": "Adadelta", "args": {"lr": 1.0}},
    "lr_scheduler": {"type": "StepLR", "args": {"step_size": 1, "gamma": 0.7}},
    "batch_size": 64,
    "test_batch_size": 1000,
    "epochs": 14,
    "save_dir": "saved/",
}

ARCHS = {}
def register(cls):
    ARCHS[cls.__name__] = cls
    return cls

@register
class Net(nn.Module):
    def __init__(self, dropout=0.25):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout * 2)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)

def init_obj(cfg, module, *args, **kwargs):
    return getattr(module, cfg["type"])(*args, **{**cfg["args"], **kwargs})

def load_split(path):
    d = np.load(path)
    x = torch.tensor(d["x"], dtype=torch.float32).unsqueeze(1) / 255.
    x = (x - 0.1307) / 0.3081
    return TensorDataset(x, torch.tensor(d["y"], dtype=torch.long))

parser = argparse.ArgumentParser()
parser.add_argument("--config", type=str, default=None)
parser.add_argument("--data-dir", type=str, default="data/mnist")
parser.add_argument("--resume", type=str, default=None, help="checkpoint to resume from")
parser.add_argument("--no-cuda", action="store_true", default=False)
parser.add_argument("--seed", type=int, default=None)
parser.add_argument("--log-interval", type=int, default=10)
args = parser.parse_args()

config = dict(DEFAULT_CONFIG)
if args.config:
    config.update(json.load(open(args.config)))

hvd.init()
use_cuda = not args.no_cuda and torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")
if args.seed is not None:
    torch.manual_seed(args.seed)
torch.set_num_threads(1)

train_set = load_split(os.path.join(args.data_dir, "train.npz"))
test_set = load_split(os.path.join(args.data_dir, "test.npz"))
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=config["batch_size"], sampler=train_sampler)
test_loader = DataLoader(test_set, batch_size=config["test_batch_size"], sampler=test_sampler)

model = init_obj(config["arch"], type("archs", (), ARCHS)).to(device)
config["optimizer"]["args"]["lr"] *= hvd.size()
optimizer = init_obj(config["optimizer"], optim, model.parameters())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = init_obj(config["lr_scheduler"], optim.lr_scheduler, optimizer)

start_epoch = 1
if args.resume:
    ckpt = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ckpt["state_dict"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
    # make sure everybody has the resumed weights
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

save_dir = os.path.join(config["save_dir"], config["name"])
if hvd.rank() == 0:
    os.makedirs(save_dir, exist_ok=True)

def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0 and hvd.rank() == 0:
            print("Train Epoch: {} [{}/{}]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_sampler), loss.item()))

def test():
    model.eval()
    test_loss, correct = 0., 0.
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
    test_loss /= len(test_sampler)
    acc = 100. * correct / len(test_sampler)
    return test_loss, acc

for epoch in range(start_epoch, config["epochs"] + 1):
    t0 = time.time()
    train(epoch)
    test_loss, acc = test()
    scheduler.step()
    if hvd.rank() == 0:
        print("\nTest set: Average loss: {:.4f}, Accuracy: {:.2f}% ({:.1f}s)\n".format(test_loss, acc, time.time() - t0))
        torch.save({"epoch": epoch, "state_dict": model.state_dict(),
                    "optimizer": optimizer.state_dict(), "config": config},
                   os.path.join(save_dir, "checkpoint-epoch{}.pth".format(epoch)))
