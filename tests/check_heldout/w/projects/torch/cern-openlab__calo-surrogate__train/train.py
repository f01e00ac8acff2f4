"""Train the calorimeter shower regressor. Self-launching: `python train.py --np 8 --hosts n1:4,n2:4`
starts the workers through horovod.run (gloo), so no mpirun is needed on the openlab nodes."""
import argparse

import horovod
import horovod.torch as hvd
import torch
import torch.nn.functional as F

from calosim import ckpt
from calosim.data import batches, load_block
from calosim.dist import average, log, setup_device
from calosim.model import ShowerRegressor


def train(cfg):
    hvd.init()
    device = setup_device()
    torch.manual_seed(cfg["seed"] + hvd.rank())

    cond, target, n_total = load_block(cfg["train_file"], hvd.rank(), hvd.size())
    vcond, vtarget, _ = load_block(cfg["val_file"], hvd.rank(), hvd.size())
    steps = n_total // hvd.size() // cfg["batch"]          # same count on every rank
    gen = torch.Generator().manual_seed(cfg["seed"] + hvd.rank())

    model = ShowerRegressor(n_out=target.shape[1]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"] * hvd.size(), weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    start_epoch = 0
    if cfg["resume"]:
        start_epoch = ckpt.load_on_root(cfg["ckpt"], model, optimizer)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(start_epoch, cfg["epochs"]):
        model.train()
        for c, t in batches(cond, target, cfg["batch"], steps, gen):
            c, t = c.to(device), t.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(c), t)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            vloss = F.mse_loss(model(vcond.to(device)), vtarget.to(device)).item()
        # array_split blocks differ by one shower: weight each rank's mean by its count
        vloss = average(vloss * len(vcond), "vloss_sum") / average(len(vcond), "vcount")
        log(f"epoch {epoch}: train {loss.item():.4f}  val {vloss:.4f}")
        ckpt.save(cfg["ckpt"], epoch, model, optimizer)
    return vloss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--train-file", default="/eos/project/calo/showers_train.h5")
    p.add_argument("--val-file", default="/eos/project/calo/showers_val.h5")
    p.add_argument("--ckpt", default="ckpt/calo_regressor.pt")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--np", type=int, default=4)
    p.add_argument("--hosts", default=None)
    args = p.parse_args()
    cfg = vars(args)
    results = horovod.run(train, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("final val loss per rank:", results)


if __name__ == "__main__":
    main()
