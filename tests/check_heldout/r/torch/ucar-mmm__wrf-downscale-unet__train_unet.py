# Statistical downscaling of ERA5 2m temperature to the 4 km WRF grid with a small U-Net.
# Originally run with mpi4py (manual gradient Allreduce); ported to Horovod in 2023.
#
#   #SBATCH --nodes=2 --ntasks-per-node=4 --gres=gpu:4
#   srun python train_unet.py /glade/derecho/scratch/$USER/downscale/days 40
import os
import sys
import time

import horovod.torch as hvd
import numpy as np
import torch

import helpers
import losses
import readers
from unet import UNet

data_dir = sys.argv[1]
n_epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 40
batch_size = 8          # per GPU
base_lr = 1e-4
warmup_epochs = 3
out_dir = os.environ.get("OUT_DIR", "output")

helpers.init_comm()
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
torch.manual_seed(42)

train_files, val_files = readers.list_days(data_dir, val_years=(2019,))
train_loader = readers.day_loader(train_files, batch_size, shuffle=True)
val_loader = readers.day_loader(val_files, batch_size, shuffle=False)
if helpers.RANK == 0:
    print("ranks:", helpers.SIZE, "train days:", len(train_files), "val days:", len(val_files))

model = UNet(in_ch=3, out_ch=1, base=32).to(device)
lr = base_lr * helpers.SIZE
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

history = []
for epoch in range(n_epochs):
    t0 = time.time()
    # linear warm-up from the single-GPU lr to the scaled lr
    if epoch < warmup_epochs:
        for g in optimizer.param_groups:
            g["lr"] = base_lr + (lr - base_lr) * (epoch + 1) / warmup_epochs
    model.train()
    for coarse, fine in train_loader:
        coarse, fine = coarse.to(device), fine.to(device)
        optimizer.zero_grad()
        loss = losses.masked_mse(model(coarse), fine)
        loss.backward()
        optimizer.step()

    model.eval()
    sq_err, count = 0.0, 0.0
    with torch.no_grad():
        for coarse, fine in val_loader:
            coarse, fine = coarse.to(device), fine.to(device)
            s, c = losses.sum_sq_error(model(coarse), fine)
            sq_err += s
            count += c
    rmse = helpers.global_rmse(sq_err, count)
    history.append(rmse)
    if helpers.RANK == 0:
        print(f"epoch {epoch:3d}  val RMSE {rmse:.3f} K  ({time.time() - t0:.0f}s)", flush=True)
        os.makedirs(out_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(out_dir, "unet_t2m.pt"))
        np.save(os.path.join(out_dir, "val_rmse.npy"), np.array(history))
