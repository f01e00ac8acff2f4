"""mace-tiny training entry point (horovod).

horovodrun -np 4 python train.py --train_file data/train.npz --valid_file data/valid.npz
"""
import torch
import horovod.torch as hvd

from mace_tiny.options import parse_options
from mace_tiny.tools import setup_distributed, setup_logger, CheckpointHandler
from mace_tiny.data import read_npz, partition
from mace_tiny.model import MACETiny
from mace_tiny.trainer import Trainer


class WeightedEnergyForcesLoss(torch.nn.Module):
    def __init__(self, energy_weight=1.0, forces_weight=100.0):
        super().__init__()
        self.energy_weight = energy_weight
        self.forces_weight = forces_weight

    def forward(self, pred, ref):
        e = torch.mean(((pred["energy"] - ref["energy"]) / ref["num_atoms"]) ** 2)
        f = torch.mean((pred["forces"] - ref["forces"]) ** 2)
        return self.energy_weight * e + self.forces_weight * f


def run(opts):
    device = setup_distributed()
    logger = setup_logger(opts.log_level)
    torch.manual_seed(opts.seed)

    train_configs = partition(read_npz(opts.train_file), hvd.rank(), hvd.size(), opts.seed)
    valid_configs = partition(read_npz(opts.valid_file), hvd.rank(), hvd.size(), opts.seed)
    logger.info(f"{hvd.size()} workers, {len(train_configs)} train configs on rank 0")

    model = MACETiny(r_max=opts.r_max, num_channels=opts.num_channels,
                     correlation=opts.correlation, num_interactions=opts.num_interactions).to(device)

    opts.lr = opts.lr * hvd.size()   # linear scaling with the number of workers
    trainer = Trainer(model, opts, device)
    loss_fn = WeightedEnergyForcesLoss(energy_weight=opts.energy_weight, forces_weight=opts.force_weight)
    checkpoints = CheckpointHandler(opts.checkpoints_dir)

    for epoch in range(opts.max_num_epochs):
        loss = trainer.train_epoch(train_configs, loss_fn, epoch)
        if epoch % opts.eval_interval == 0:
            metrics = trainer.evaluate(valid_configs)
            logger.info(f"epoch {epoch} loss={loss:.4f} "
                        f"MAE_E/atom={metrics['mae_e_per_atom'] * 1000:.1f} meV "
                        f"MAE_F={metrics['mae_f'] * 1000:.1f} meV/A")
            checkpoints.save({"model": model.state_dict(),
                              "ema": trainer.ema.module.state_dict() if trainer.ema else None,
                              "optimizer": trainer.optimizer.state_dict(),
                              "epoch": epoch}, epoch)


if __name__ == "__main__":
    run(parse_options())
