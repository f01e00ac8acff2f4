import torch
import torch.nn as nn
import torchvision
import horovod.torch as hvd

from vts.cli import parse_args
from vts.data import build_loaders
from vts.hooks import build_hooks
from vts.state import sync_and_resume


class Trainer:
    def __init__(self, model, optimizer, scheduler, device):
        self.model, self.optimizer, self.scheduler, self.device = model, optimizer, scheduler, device
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self, loader):
        self.model.train()
        for images, targets in loader:
            images, targets = images.to(self.device, non_blocking=True), targets.to(self.device)
            self.optimizer.zero_grad()
            self.criterion(self.model(images), targets).backward()
            self.optimizer.step()
        self.scheduler.step()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        correct = torch.zeros(1, device=self.device)
        seen = torch.zeros(1, device=self.device)
        for images, targets in loader:
            images, targets = images.to(self.device), targets.to(self.device)
            correct += (self.model(images).argmax(1) == targets).sum()
            seen += targets.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="correct")
        seen = hvd.allreduce(seen, op=hvd.Sum, name="seen")
        return {"top1": (correct / seen).item()}


def main():
    args = parse_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    train_loader, val_loader, train_sampler = build_loaders(args.data_dir, args.batch_size, args.workers)
    model = getattr(torchvision.models, args.arch)(num_classes=args.num_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch = sync_and_resume(model, optimizer, args.work_dir, args.resume)
    for _ in range(start_epoch):
        scheduler.step()
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    trainer = Trainer(model, optimizer, scheduler, device)
    hooks = build_hooks(args.hooks, args.work_dir)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader)
        metrics = trainer.validate(val_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: top1={metrics['top1']:.4f} lr={scheduler.get_last_lr()[0]:.5f}", flush=True)
        for hook in hooks:
            hook.after_epoch(trainer, epoch, metrics)


if __name__ == "__main__":
    main()
