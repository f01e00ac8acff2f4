import argparse
import os

import torch
import horovod.torch as hvd

from edgefilter import Settings
from edgefilter.data import build_loaders
from edgefilter.model import EdgeMLP
from edgefilter.loops import train_one_epoch, evaluate


def parse():
    ap = argparse.ArgumentParser("edge filter training")
    ap.add_argument("--set", nargs="*", metavar="KEY=VALUE")
    return ap.parse_args()


def main():
    args = parse()
    hvd.init()
    s = Settings().update(args.set)
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    train_loader, val_loader, sampler = build_loaders(s)
    model = EdgeMLP(n_in=train_loader.dataset.x.shape[1]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=s.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=s.milestones, gamma=0.3)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    latest = os.path.join(s.out_dir, "latest.pt")
    start = 0
    if s.resume and hvd.rank() == 0 and os.path.exists(latest):
        state = torch.load(latest, map_location=device)
        model.load_state_dict(state["model"])
        start = state["epoch"] + 1
        print(f"resumed from {latest} at epoch {start}")
    start = hvd.broadcast_object(start, root_rank=0)
    for _ in range(start):
        scheduler.step()

    for epoch in range(start, s.epochs):
        sampler.set_epoch(epoch)
        loss = train_one_epoch(model, train_loader, optimizer, s.pos_weight, device)
        m = evaluate(model, val_loader, s.threshold, device)
        scheduler.step()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} train_loss {loss:.4f} edge_eff {m['eff']:.4f} "
                  f"edge_pur {m['pur']:.4f} ({m['n']} edges)")
            os.makedirs(s.out_dir, exist_ok=True)
            state = {"model": model.state_dict(), "epoch": epoch, "settings": vars(s)}
            torch.save(state, os.path.join(s.out_dir, f"edgefilter_e{epoch:03d}.pt"))
            torch.save(state, latest)


if __name__ == "__main__":
    main()
