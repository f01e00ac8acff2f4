import os
import torch
import horovod.torch as hvd
import torchvision.utils as vutils

from realnvp.config import build_parser
from realnvp.hvd_utils import init_horovod, rank0_print
from realnvp.datasets import get_loader
from realnvp.flows import RealNVP
from realnvp.engine import train_one_epoch, evaluate

cfg = build_parser().parse_args()
device = init_horovod(cfg.use_cuda)
torch.manual_seed(0)

train_loader, train_sampler = get_loader(cfg, "train", hvd.rank(), hvd.size())
test_loader, _ = get_loader(cfg, "test", hvd.rank(), hvd.size())

model = RealNVP(c=3, hw=32, n_blocks=cfg.n_blocks, mid=cfg.mid_channels).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

best = float("inf")
for epoch in range(cfg.epochs):
    train_sampler.set_epoch(epoch)
    tr = train_one_epoch(model, train_loader, optimizer, cfg, epoch, device)
    if epoch % cfg.eval_every != 0:
        continue
    te = evaluate(model, test_loader, device)
    rank0_print("epoch %d train bpd %.4f test bpd %.4f" % (epoch, tr.bpd, te.bpd))
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        state = {"model": model.state_dict(), "opt": optimizer.state_dict(), "epoch": epoch, "bpd": te.bpd}
        torch.save(state, os.path.join(cfg.ckpt_dir, "last.pth"))
        if te.bpd < best:
            best = te.bpd
            torch.save(state, os.path.join(cfg.ckpt_dir, "best.pth"))
        os.makedirs(cfg.sample_dir, exist_ok=True)
        vutils.save_image(model.sample(64, device), os.path.join(cfg.sample_dir, "epoch_%03d.png" % epoch), nrow=8)
