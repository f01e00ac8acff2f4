# FourCastNet-style AFNO training, Horovod port of our torch.distributed script.
#   sbatch: srun -u --mpi=pmi2 python train.py --yaml_config config/afno.yaml --config afno_backbone
import argparse
import os

import torch
import horovod.torch as hvd

from fcnlite.yparams import YParams
from fcnlite.data_loader import get_data_loader
from fcnlite.afno import AFNONet
from fcnlite.trainer import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--yaml_config", default="./config/afno.yaml", type=str)
parser.add_argument("--config", default="afno_backbone", type=str)
parser.add_argument("--run_num", default="00", type=str)
parser.add_argument("--local_rank", default=0, type=int)
parser.add_argument("--batch_size", default=None, type=int)
parser.add_argument("--enable_amp", action="store_true")
args = parser.parse_args()

params = YParams(os.path.abspath(args.yaml_config), args.config, batch_size=args.batch_size)

hvd.init()
world_size = hvd.size()
params.world_size = world_size
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda", torch.cuda.current_device())
else:
    device = torch.device("cpu")
torch.backends.cudnn.benchmark = True

is_master = args.local_rank == 0
params.exp_dir = os.path.join(params.exp_dir, args.config, args.run_num)
if is_master:
    os.makedirs(params.exp_dir, exist_ok=True)

train_loader, train_ds, train_sampler = get_data_loader(params, params.train_data_path, True, train=True,
                                                        rank=hvd.rank(), world_size=world_size)
valid_loader, valid_ds, _ = get_data_loader(params, params.valid_data_path, True, train=False,
                                            rank=hvd.rank(), world_size=world_size)

model = AFNONet(params).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=params.lr * world_size, betas=(0.9, 0.95))
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=params.max_epochs)

trainer = Trainer(params, model, optimizer, scheduler, train_loader, valid_loader, train_sampler,
                  device, is_master)
ckpt = trainer.ckpt_path
if os.path.isfile(ckpt):
    trainer.restore_checkpoint(ckpt)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
trainer.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

trainer.log("world size %d, per-rank batch %d, lr %.2e" % (world_size, params.batch_size, params.lr * world_size))
trainer.fit()
