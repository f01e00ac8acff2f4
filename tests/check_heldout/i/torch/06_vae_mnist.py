import os
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
from torchvision.utils import save_image
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd

parser = argparse.ArgumentParser(description="VAE on MNIST with Horovod")
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--latent", type=int, default=20)
parser.add_argument("--data-dir", default="./data")
parser.add_argument("--out-dir", default="./vae_out")
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()


class VAE(nn.Module):
    def __init__(self, latent=20):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc_mu = nn.Linear(400, latent)
        self.fc_logvar = nn.Linear(400, latent)
        self.fc3 = nn.Linear(latent, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h = F.relu(self.fc1(x))
        return self.fc_mu(h), self.fc_logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def vae_loss(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x.view(-1, 784), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


hvd.init()
torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda")
torch.manual_seed(42)

# download once per node, the others wait at the barrier-like allreduce
if hvd.local_rank() == 0:
    datasets.MNIST(args.data_dir, train=True, download=True)
hvd.allreduce(torch.tensor(0.0), name="download_barrier")

train_set = datasets.MNIST(args.data_dir, train=True, transform=transforms.ToTensor())
test_set = datasets.MNIST(args.data_dir, train=False, transform=transforms.ToTensor())
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
test_loader = DataLoader(test_set, batch_size=256, shuffle=False, num_workers=2)

model = VAE(args.latent).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
dist_optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

ckpt_path = os.path.join(args.out_dir, "vae.pt")
start_epoch = 1
if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
    ckpt = torch.load(ckpt_path, map_location=device)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
    print(f"resumed from epoch {ckpt['epoch']}")
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

writer = None
if hvd.rank() == 0:
    os.makedirs(args.out_dir, exist_ok=True)
    writer = SummaryWriter(os.path.join(args.out_dir, "tb"))


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    total = torch.zeros(1, device=device)
    for data, _ in train_loader:
        data = data.to(device)
        optimizer.zero_grad()
        recon, mu, logvar = model(data)
        loss = vae_loss(recon, data, mu, logvar)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    # per-sample loss over the whole epoch, averaged across workers
    avg = hvd.allreduce(total / len(train_sampler), name="train_loss")
    return avg.item()


def test(epoch):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon, mu, logvar = model(data)
            total += vae_loss(recon, data, mu, logvar).item()
            if i == 0 and hvd.rank() == 0:
                comparison = torch.cat([data[:8], recon.view(-1, 1, 28, 28)[:8]])
                save_image(comparison.cpu(), os.path.join(args.out_dir, f"recon_{epoch}.png"), nrow=8)
    return total / len(test_loader.dataset)


for epoch in range(start_epoch, args.epochs + 1):
    train_loss = train(epoch)
    test_loss = test(epoch)
    if hvd.rank() == 0:
        print(f"====> Epoch {epoch} train loss {train_loss:.4f} test loss {test_loss:.4f}")
        writer.add_scalar("loss/train", train_loss, epoch)
        writer.add_scalar("loss/test", test_loss, epoch)
        with torch.no_grad():
            sample = model.decode(torch.randn(64, args.latent, device=device)).cpu()
            save_image(sample.view(64, 1, 28, 28), os.path.join(args.out_dir, f"sample_{epoch}.png"))
        torch.save({"epoch": epoch, "model": model.state_dict(),
                    "optimizer": optimizer.state_dict()}, ckpt_path)
