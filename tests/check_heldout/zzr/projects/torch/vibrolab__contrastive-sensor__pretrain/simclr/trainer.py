import logging
import os

import torch
import horovod.torch as hvd

from .augment import two_views
from .models import nt_xent

logger = logging.getLogger(__name__)


class PretrainTrainer:
    def __init__(self, model, optimizer, scheduler, device, out_dir, temperature=0.2):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.out_dir = out_dir
        self.temperature = temperature
        # start every worker from the same weights
        hvd.broadcast_parameters(self.model.encoder.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader, epoch):
        self.model.train()
        loader.sampler.set_epoch(epoch)
        running = 0.0
        for step, (x,) in enumerate(loader):
            x = x.to(self.device)
            v1, v2 = two_views(x)
            loss = nt_xent(self.model(v1), self.model(v2), self.temperature)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            running += loss.item()
        self.scheduler.step()
        avg = hvd.allreduce(torch.tensor(running / max(step + 1, 1)), name="pretrain_loss").item()
        if hvd.rank() == 0:
            logger.info("epoch %d  nt-xent %.4f  lr %.2e", epoch, avg, self.scheduler.get_last_lr()[0])
        return avg

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "encoder": self.model.encoder.state_dict()},
                   os.path.join(self.out_dir, f"encoder_{epoch:03d}.pt"))
