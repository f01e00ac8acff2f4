"""Energy-based OOD fine-tuning of a pretrained CIFAR-10 classifier (Horovod).

Usage:
    horovodrun -np 8 -H host1:4,host2:4 python train_ood.py --pretrained ckpt/wrn40_2.pt
"""
import argparse
import logging
import os

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from oodlib import datasets, runtime
from oodlib.losses import energy, energy_margin_loss
from oodlib.metrics import auroc, fpr_at_95_tpr, gather_scores, global_mean

logger = logging.getLogger(__name__)


class OODFinetuner:
    def __init__(self, args, device):
        self.args, self.device = args, device
        self.loaders, self.samplers = datasets.build(args.data, args.outliers, args.batch_size,
                                                     hvd.rank(), hvd.size())
        self.model = torchvision.models.resnet18(num_classes=10).to(device)
        if args.pretrained:
            state = torch.load(args.pretrained, map_location="cpu")
            self.model.load_state_dict(state.get("model", state))
        opt = torch.optim.SGD(self.model.parameters(), lr=args.lr * hvd.size(), momentum=0.9,
                              weight_decay=5e-4, nesterov=True)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, epoch):
        self.model.train()
        for s in self.samplers.values():
            s.set_epoch(epoch)
        for step, ((x_in, y_in), (x_out,)) in enumerate(zip(self.loaders["train"], self.loaders["outlier"])):
            x = torch.cat([x_in, x_out]).to(self.device)
            y_in = y_in.to(self.device)
            logits = self.model(x)
            n_in = y_in.shape[0]
            ce = F.cross_entropy(logits[:n_in], y_in)
            loss = ce + self.args.lam * energy_margin_loss(logits[:n_in], logits[n_in:])
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if step % self.args.log_every == 0:
                logger.info("epoch %d step %d  loss %.4f  ce %.4f", epoch, step,
                            global_mean(loss.item(), "train_loss"), global_mean(ce.item(), "train_ce"))

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        correct, total, s_in, s_out = 0, 0, [], []
        for x, y in self.loaders["test"]:
            logits = self.model(x.to(self.device))
            correct += logits.argmax(-1).cpu().eq(y).sum().item()
            total += y.numel()
            s_in.append((-energy(logits)).cpu())
        for x, _ in self.loaders["ood"]:
            s_out.append((-energy(self.model(x.to(self.device)))).cpu())
        s_in = gather_scores(torch.cat(s_in), "s_in")
        s_out = gather_scores(torch.cat(s_out), "s_out")
        return {"acc": global_mean(correct / total, "acc"),
                "auroc": auroc(s_in, s_out), "fpr95": fpr_at_95_tpr(s_in, s_out)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/datasets/torchvision")
    p.add_argument("--outliers", default="/datasets/300K_random_images.npy")
    p.add_argument("--pretrained", default="")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--lam", type=float, default=0.1)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--out", default="snapshots/energy_ft")
    args = p.parse_args()

    device = runtime.setup()
    torch.manual_seed(1)
    tuner = OODFinetuner(args, device)
    for epoch in range(args.epochs):
        tuner.train_epoch(epoch)
        res = tuner.evaluate()
        logger.info("epoch %d  test acc %.4f  AUROC(SVHN) %.4f  FPR95 %.4f",
                    epoch, res["acc"], res["auroc"], res["fpr95"])
        if hvd.rank() == 0:
            os.makedirs(args.out, exist_ok=True)
            torch.save(tuner.model.state_dict(), os.path.join(args.out, f"epoch_{epoch}.pt"))
            np.save(os.path.join(args.out, "last_metrics.npy"), np.array([res[k] for k in sorted(res)]))


if __name__ == "__main__":
    main()
