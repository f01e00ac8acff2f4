import argparse
import os

import horovod.torch as hvd
import torch

from gptmini import GRULanguageModel, Trainer
from gptmini.data import build_loaders
from gptmini.utils import get_logger, load_yaml

parser = argparse.ArgumentParser(description="gpt-mini pretraining (horovod)")
parser.add_argument("--config", default="configs/base.yaml")
parser.add_argument("--set", dest="overrides", action="append", default=[],
                    help="override a config entry, e.g. --set optim.lr=1e-4")
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()

hvd.init()
log = get_logger(hvd.rank())
cfg = load_yaml(args.config, args.overrides)

if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

train_loader, val_loader = build_loaders(cfg)
m = cfg["model"]
model = GRULanguageModel(m["vocab"], m["dim"], m["layers"]).to(device)

# linear scaling: per-rank batch stays fixed, so the global batch grows with hvd.size()
opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"] * hvd.size(), weight_decay=0.1)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                               backward_passes_per_step=cfg["optim"]["accum"])
trainer = Trainer(model, opt, cfg, device, log)

ckpt_dir = cfg["train"]["ckpt_dir"]
ckpt_path = os.path.join(ckpt_dir, "last.pt")
if args.resume and os.path.exists(ckpt_path):
    state = torch.load(ckpt_path, map_location="cpu")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    trainer.step = state["step"]
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
trainer.step = hvd.broadcast_object(trainer.step, root_rank=0)

tc, total = cfg["train"], cfg["optim"]["total_steps"]
os.makedirs(ckpt_dir, exist_ok=True)
while trainer.step < total:
    it = iter(train_loader)
    while True:
        micro = [b for _, b in zip(range(trainer.accum), it)]
        if len(micro) < trainer.accum:
            break
        loss, lr = trainer.train_step(micro)
        s = trainer.step
        if s % tc["log_every"] == 0:
            log.info("step %d loss %.4f lr %.3e", s, loss, lr)
        if s % tc["eval_every"] == 0:
            vl, ppl = trainer.evaluate(val_loader)
            log.info("step %d val_loss %.4f val_ppl %.2f", s, vl, ppl)
        if s % tc["ckpt_every"] == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": s}, ckpt_path)
            log.info("saved %s", ckpt_path)
        if s >= total:
            break
