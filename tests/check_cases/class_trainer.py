"""A PyTorch trainer written as methods of classes, for hvdkit check's class cases: two classes share
method names (prepare, loop), and the training runs through an instance. All eight steps are right.
"""
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Evaluator:
    def __init__(self, model):
        self.model = model

    def prepare(self):
        self.model.eval()

    def loop(self, batches):
        with torch.no_grad():
            return sum(float(self.model(x).sum()) for x, _ in batches)

    def fit(self, batches):
        self.prepare()
        return self.loop(batches)


class Trainer:
    def __init__(self, width):
        self.model = torch.nn.Linear(width, 1)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3 * hvd.size())
        self.opt = hvd.DistributedOptimizer(self.opt, named_parameters=self.model.named_parameters())

    def prepare(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)

    def fit(self, loader, sampler, epochs, folder):
        self.prepare()
        self.loop(loader, sampler, epochs, folder)

    def loop(self, loader, sampler, epochs, folder):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            running = torch.zeros(2)
            for x, y in loader:
                self.opt.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x).squeeze(1), y)
                loss.backward()
                self.opt.step()
                running += torch.tensor([loss.item() * len(y), len(y)])
            running = hvd.allreduce(running, op=hvd.Sum)
            if hvd.rank() == 0:
                print("epoch", epoch, "loss", float(running[0] / running[1]))
                torch.save(self.model.state_dict(), os.path.join(folder, "trainer.pt"))


def main():
    hvd.init()
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    xs = torch.linspace(-1, 1, 300).reshape(100, 3)
    data = TensorDataset(xs, xs.sum(1))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(data, batch_size=10, sampler=sampler)
    trainer = Trainer(3)
    trainer.fit(loader, sampler, 2, ".")
    checker = Evaluator(trainer.model)
    checker.fit(loader)


if __name__ == "__main__":
    main()
