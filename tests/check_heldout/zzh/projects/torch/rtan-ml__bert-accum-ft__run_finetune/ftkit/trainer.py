import logging
import math
from dataclasses import dataclass

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from .checkpointing import save_checkpoint
from .optim import build_optimizer, linear_warmup_decay

logger = logging.getLogger(__name__)


@dataclass
class TrainingArguments:
    output_dir: str = "outputs"
    per_device_train_batch_size: int = 16
    per_device_eval_batch_size: int = 64
    gradient_accumulation_steps: int = 2
    learning_rate: float = 5e-5
    weight_decay: float = 0.01
    adam_epsilon: float = 1e-8
    warmup_ratio: float = 0.06
    num_train_epochs: int = 3
    save_steps: int = 500
    fp16: bool = False
    max_grad_norm: float = 1.0


class Trainer:
    def __init__(self, model, args, train_dataset, eval_dataset, device):
        self.model, self.args, self.device = model, args, device
        self.train_sampler = DistributedSampler(train_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
        self.train_loader = DataLoader(train_dataset, batch_size=args.per_device_train_batch_size,
                                       sampler=self.train_sampler, drop_last=True)
        eval_sampler = DistributedSampler(eval_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.eval_loader = DataLoader(eval_dataset, batch_size=args.per_device_eval_batch_size, sampler=eval_sampler)

        steps_per_epoch = len(self.train_loader) // args.gradient_accumulation_steps
        self.total_steps = max(1, steps_per_epoch * args.num_train_epochs)
        optimizer = build_optimizer(model, args)
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters(),
            compression=hvd.Compression.fp16, backward_passes_per_step=args.gradient_accumulation_steps)
        self.scheduler = linear_warmup_decay(self.optimizer, math.ceil(args.warmup_ratio * self.total_steps),
                                             self.total_steps)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
        self.global_step = 0

    def _optimizer_step(self):
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        self.optimizer.zero_grad()
        self.global_step += 1

    def train(self):
        args = self.args
        self.model.train()
        for epoch in range(args.num_train_epochs):
            self.train_sampler.set_epoch(epoch)
            for i, batch in enumerate(self.train_loader):
                batch = {k: v.to(self.device) for k, v in batch.items()}
                with torch.autocast(self.device.type, enabled=args.fp16):
                    loss, _ = self.model(**batch)
                self.scaler.scale(loss / args.gradient_accumulation_steps).backward()
                last_batch = i + 1 == len(self.train_loader)
                if (i + 1) % args.gradient_accumulation_steps != 0 and not last_batch:
                    continue
                self._optimizer_step()
                if hvd.rank() == 0 and self.global_step % 50 == 0:
                    logger.info("epoch %d step %d loss %.4f", epoch, self.global_step, loss.item())
                if self.global_step % args.save_steps == 0:
                    save_checkpoint(args.output_dir, self.global_step, self.model, self.optimizer,
                                    self.scheduler, self.scaler)
            metrics = self.evaluate()
            if hvd.rank() == 0:
                logger.info("epoch %d eval %s", epoch, metrics)
        return save_checkpoint(args.output_dir, self.global_step, self.model, self.optimizer,
                               self.scheduler, self.scaler)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        stats = torch.zeros(3)
        for batch in self.eval_loader:
            batch = {k: v.to(self.device) for k, v in batch.items()}
            loss, logits = self.model(**batch)
            n = batch["labels"].numel()
            stats += torch.tensor([loss.item() * n, (logits.argmax(-1) == batch["labels"]).sum().item(), n])
        stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
        self.model.train()
        return {"eval_loss": (stats[0] / stats[2]).item(), "eval_accuracy": (stats[1] / stats[2]).item()}
