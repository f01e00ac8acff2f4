import argparse
import torch
import horovod.torch as hvd

from painn_hvd.config import TrainConfig
from painn_hvd.datasets import get_dataloaders
from painn_hvd.nn import PaiNN
from painn_hvd.engine import Engine
from painn_hvd.ckpt import load_checkpoint

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/md17_ethanol.json")
parser.add_argument("--epochs", type=int)
parser.add_argument("--batch-size", type=int)
parser.add_argument("--resume", default=None, help="checkpoint to resume from")
args = parser.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

cfg = TrainConfig.from_json(args.config, epochs=args.epochs, batch_size=args.batch_size)
torch.manual_seed(cfg.seed)
if hvd.rank() == 0:
    print(cfg.to_dict())

train_dl, val_dl = get_dataloaders(cfg, hvd.rank(), hvd.size())

model = PaiNN(hidden=cfg.hidden, n_layers=cfg.n_layers, n_rbf=cfg.n_rbf, cutoff=cfg.cutoff).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=cfg.weight_decay)

start_epoch = 0
if args.resume and hvd.rank() == 0:
    start_epoch = load_checkpoint(args.resume, model, opt) + 1
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

engine = Engine(model, opt, cfg, device)
engine.fit(train_dl, val_dl, start_epoch=start_epoch)
