"""Formation-energy regression on Materials Project crystals from composition + structure descriptors.

    #SBATCH --nodes=2 --ntasks-per-node=4 --gpus-per-node=4 --cpus-per-task=8
    export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
    srun python main.py --features /pool/mp_2023/descriptors.npz --epochs 120
"""
import argparse

import horovod.torch as hvd
import torch

from matprop.data import DescriptorData
from matprop.model import DescriptorNet
from matprop.trainer import Trainer


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--features", required=True)
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--batch-size", type=int, default=256, help="per GPU")
    p.add_argument("--lr", type=float, default=5e-4, help="single-GPU learning rate")
    p.add_argument("--warmup-epochs", type=int, default=5)
    p.add_argument("--hidden", type=int, nargs="+", default=[512, 256, 128])
    p.add_argument("--ckpt", default="checkpoints/descnet.pt")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)

    data = DescriptorData(args.features, val_fraction=0.05, seed=0)
    train_loader, train_sampler = data.loader("train", args.batch_size, hvd.rank(), hvd.size())
    val_loader, _ = data.loader("val", 512, hvd.rank(), hvd.size())

    model = DescriptorNet(data.n_features, args.hidden).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    trainer = Trainer(model, optimizer, device, base_lr=args.lr, ckpt_path=args.ckpt,
                      warmup_epochs=args.warmup_epochs)
    if args.resume:
        trainer.load()
    trainer.broadcast()
    trainer.fit(train_loader, train_sampler, val_loader, args.epochs)


if __name__ == "__main__":
    main()
