"""Image/title two-tower model for visual product search (Horovod)."""
import argparse
import dataclasses
import json
import os
from dataclasses import dataclass

import torch
import horovod.torch as hvd

from towers import ImageTower, TextTower, CharTrigramTokenizer
from training.data import load_pairs, make_loader
from training.loss import clip_loss
from training.optim import build_optimizers


@dataclass
class Config:
    data: str = "/mnt/data/products"
    save_dir: str = "ckpt"
    epochs: int = 8
    batch_size: int = 256
    lr: float = 3e-4
    temp_lr: float = 1e-3
    weight_decay: float = 0.05
    dim: int = 192
    eval_every: int = 1


def parse_config():
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        p.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    return Config(**vars(p.parse_args()))


class TwoTower(torch.nn.Module):
    def __init__(self, img_dim, dim):
        super().__init__()
        self.image = ImageTower(img_dim, dim)
        self.text = TextTower(out_dim=dim)
        self.logit_scale = torch.nn.Parameter(torch.tensor(2.659))


@torch.no_grad()
def evaluate(model, loader, gallery_feats, device):
    model.eval()
    gallery = model.image(gallery_feats.to(device))
    hits = torch.zeros(3)
    count = torch.zeros(1)
    for _, toks, item in loader:
        scores = model.text(toks.to(device)) @ gallery.t()
        topk = scores.topk(10, dim=1).indices.cpu()
        for j, k in enumerate((1, 5, 10)):
            hits[j] += (topk[:, :k] == item.unsqueeze(1)).any(1).sum()
        count += len(item)
    hits = hvd.allreduce(hits, op=hvd.Sum, name="hits")
    count = hvd.allreduce(count, op=hvd.Sum, name="count")
    model.train()
    return (hits / count).tolist()


def main():
    cfg = parse_config()
    hvd.init()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)

    tok = CharTrigramTokenizer()
    train_set = load_pairs(cfg.data, "train", tok)
    val_set = load_pairs(cfg.data, "val", tok)
    train_loader = make_loader(train_set, cfg.batch_size, hvd.rank(), hvd.size())
    val_loader = make_loader(val_set, cfg.batch_size, hvd.rank(), hvd.size(), train=False)
    gallery_feats = val_set.tensors[0]

    model = TwoTower(train_set.tensors[0].shape[1], cfg.dim).to(device)
    tower_opt, temp_opt = build_optimizers(model, cfg.lr * hvd.size(), cfg.temp_lr,
                                           cfg.weight_decay)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(tower_opt, root_rank=0)

    for epoch in range(cfg.epochs):
        train_loader.sampler.set_epoch(epoch)
        for step, (feats, toks, _) in enumerate(train_loader):
            q = model.text(toks.to(device))
            d = model.image(feats.to(device))
            loss = clip_loss(q, d, model.logit_scale)
            tower_opt.zero_grad()
            temp_opt.zero_grad()
            loss.backward()
            tower_opt.step()
            temp_opt.step()
            with torch.no_grad():
                model.logit_scale.clamp_(0, 4.6052)

        if (epoch + 1) % cfg.eval_every == 0:
            r1, r5, r10 = evaluate(model, val_loader, gallery_feats, device)
            if hvd.rank() == 0:
                print(json.dumps({"epoch": epoch, "loss": loss.item(), "R@1": r1,
                                  "R@5": r5, "R@10": r10,
                                  "tau": 1 / model.logit_scale.exp().item()}), flush=True)
                os.makedirs(cfg.save_dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "cfg": dataclasses.asdict(cfg),
                            "epoch": epoch}, os.path.join(cfg.save_dir, f"epoch{epoch:03d}.pt"))


if __name__ == "__main__":
    main()
