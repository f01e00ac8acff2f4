"""ResNet-18 on CIFAR-10 with Horovod (Delta A100 nodes).

Started by jobs/delta_4gpu.sbatch:
    srun python train.py --epochs 30 --batch-size 128
"""
import horovod.torch as hvd

from cifar.config import TrainConfig
from cifar.data import make_loaders
from cifar.dist import make_optimizer, pin_device, sync_initial_state
from cifar.model import resnet18_cifar
from cifar.trainer import Trainer


def main():
    cfg = TrainConfig.from_args()
    hvd.init()
    device = pin_device()

    train_loader, val_loader, train_sampler = make_loaders(cfg)
    model = resnet18_cifar().to(device)
    optimizer = make_optimizer(model, cfg)
    sync_initial_state(model, optimizer)

    trainer = Trainer(model, optimizer, device, cfg)
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        trainer.evaluate(val_loader, epoch)
        trainer.maybe_save(epoch)


if __name__ == "__main__":
    main()
