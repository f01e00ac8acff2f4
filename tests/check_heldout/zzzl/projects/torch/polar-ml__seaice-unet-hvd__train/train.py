# Sea-ice concentration nowcasting with a small U-Net, horovod data parallel.
#
#   PBS:  #PBS -l select=2:ncpus=48:ngpus=4:mpiprocs=4 -l walltime=06:00:00
#         mpirun -np 8 --map-by ppr:4:node python train.py --epochs 40
import os

import torch
import horovod.torch as hvd

from seaice import options, ckpt
from seaice.hvd_utils import init_horovod, rank0_print
from seaice.datasets import SeaIceSequence, forcing_stats, make_loader
from seaice.engine import UNetSmall, Trainer

args = options.parse()
rank, world = init_horovod()
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")

stats = forcing_stats(args.data, args.train_years) if rank == 0 else None
stats = hvd.broadcast_object(stats, root_rank=0)

train_ds = SeaIceSequence(args.data, args.train_years, args.history, args.lead, stats)
valid_ds = SeaIceSequence(args.data, args.valid_years, args.history, args.lead, stats)
train_loader, train_sampler = make_loader(train_ds, args.batch_size, args.workers, train=True)
valid_loader, _ = make_loader(valid_ds, args.batch_size, args.workers, train=False)

n_forcing = 4
model = UNetSmall(args.history + n_forcing, 1, args.base_ch).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * world)

start_epoch, best = 0, float("inf")
if args.resume and os.path.exists(args.resume):
    start_epoch, best = ckpt.load(args.resume, model, optimizer)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression)

trainer = Trainer(model, optimizer, device)
for epoch in range(start_epoch, args.epochs):
    train_sampler.set_epoch(epoch)
    trainer.train_epoch(train_loader, epoch, log=rank0_print)
    scores = trainer.evaluate(valid_loader)
    rank0_print("epoch %d valid rmse %.4f iiee %.4f" % (epoch, scores["rmse"], scores["iiee_frac"]))
    if rank == 0:
        ckpt.save(os.path.join(args.out, "last.pt"), model, optimizer, epoch + 1, best)
        if scores["rmse"] < best:
            best = scores["rmse"]
            ckpt.save(os.path.join(args.out, "best.pt"), model, optimizer, epoch + 1, best)
