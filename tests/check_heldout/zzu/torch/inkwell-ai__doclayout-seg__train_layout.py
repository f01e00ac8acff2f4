"""Page layout segmentation (text / title / table / figure) with Horovod."""
import argparse
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from layout import load_config
from layout.dataset import make_loader
from layout.metrics import confusion, mean_iou
from layout.model import LayoutUNet


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.num_classes = len(cfg["model"]["classes"])
        self.model = LayoutUNet(self.num_classes, cfg["model"]["width"]).to(self.device)
        o = cfg["optim"]
        opt = torch.optim.AdamW(self.model.parameters(), lr=o["lr"] * hvd.size(),
                                weight_decay=o["weight_decay"])
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        milestones = [int(o["epochs"] * 0.6), int(o["epochs"] * 0.85)]
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones, gamma=0.1)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.train_loader, self.train_sampler = make_loader(cfg, "train_list", train=True)
        self.val_loader, _ = make_loader(cfg, "val_list", train=False)

    def train_one_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device), y.to(self.device)
            loss = F.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if hvd.rank() == 0 and step % 50 == 0:
                print(f"[epoch {epoch} step {step}] loss={loss.item():.4f}", flush=True)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        conf = torch.zeros(self.num_classes, self.num_classes, dtype=torch.float64)
        for x, y in self.val_loader:
            pred = self.model(x.to(self.device)).argmax(1).cpu()
            conf += confusion(pred, y, self.num_classes)
        conf = hvd.allreduce(conf, op=hvd.Sum, name="val_confusion")
        return mean_iou(conf)

    def save(self, epoch, miou):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg["output"], exist_ok=True)
        torch.save({"epoch": epoch, "miou": miou, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.cfg["output"], f"epoch_{epoch:03d}.pth"))

    def fit(self):
        for epoch in range(self.cfg["optim"]["epochs"]):
            self.train_one_epoch(epoch)
            self.scheduler.step()
            miou, per_class = self.validate()
            if hvd.rank() == 0:
                names = self.cfg["model"]["classes"]
                print("val mIoU %.4f | " % miou + " ".join(f"{n}={v:.3f}" for n, v in zip(names, per_class)))
            self.save(epoch, miou)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/publaynet_small.yaml")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
    torch.manual_seed(42)

    cfg = load_config(args.config)
    if args.epochs is not None:
        cfg["optim"]["epochs"] = args.epochs
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
