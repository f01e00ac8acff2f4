"""Values made by the project's own code that is not there, where a step's verdict turns on them.

- Step 4: the LR multiplied by an attribute of an object such code made (`lr = args.base_lr * job.size` with
  `job = describe_job()` of an absent `scaling.env`): the attribute may be the number of ranks, so the LR is
  "cannot tell", not "missing". Read in the project, the same script is ok when `size` is hvd.size() and
  missing when it is the node's GPU count; a constant factor is missing either way.
- Step 4: an LR schedule that overwrites the optimizer's LR unscaled, in a worker an absent launcher runs
  (`launch.run(worker, args)`) whose batch is the global batch divided by the context's size: if that size is
  the number of ranks the global batch is fixed and the unscaled LR right, so "cannot tell", not "wrong". The
  batch left undivided keeps the verdict "wrong".
- Step 8: a value summed over ranks and printed as it is, made by an absent module's meter
  (`rate = hvd.allreduce(torch.tensor(meter.rate()), op=hvd.Sum)`): a rate or a count is rightly summed, a
  mean is not; "cannot tell". Read in the project, a meter that divides samples by a clock's seconds is ok and
  one that returns a mean loss is wrong.

Written from scratch for these tests, shaped as a scaling-study repository with its own `scaling` package."""
import textwrap

from hvdkit.check import MISSING, OK, UNKNOWN, WRONG
from hvdkit.check.static import analyze

BENCH = '''
    """ResNet scaling study.  mpirun -n 8 python bench.py --scaling weak"""
    import argparse

    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from scaling.env import describe_job
    from scaling.meters import Meter


    def parse_args():
        p = argparse.ArgumentParser()
        p.add_argument("--base-lr", type=float, default=0.1)
        p.add_argument("--batch-size", type=int, default=64)
        p.add_argument("--epochs", type=int, default=2)
        return p.parse_args()


    def main():
        args = parse_args()
        hvd.init()
        job = describe_job()
        torch.set_num_threads(1)
        lr = {lr}
        data = torch.utils.data.TensorDataset(torch.randn(2048, 16), torch.randint(0, 4, (2048,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=args.batch_size, sampler=sampler)
        model = torch.nn.Linear(16, 4)
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        meter = Meter()
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                meter.start()
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                meter.stop(len(x), loss.item())
            rate = hvd.allreduce(torch.tensor({value}), op=hvd.Sum, name="epoch_rate")
            if hvd.rank() == 0:
                print(f"epoch {epoch}: last loss {loss.item():.4f}, {float(rate):.1f} samples/s")
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
'''

ENV = '''
    import types

    import horovod.torch as hvd
    import torch


    def describe_job():
        return types.SimpleNamespace(rank=hvd.rank(), local_rank=hvd.local_rank(), size={size})
'''

METERS = '''
    import time


    class Meter:
        def __init__(self):
            self.samples = 0
            self.seconds = 0.0
            self.loss_sum = 0.0
            self.batches = 0

        def start(self):
            self.t0 = time.perf_counter()

        def stop(self, n, loss):
            self.seconds += time.perf_counter() - self.t0
            self.samples += n
            self.loss_sum += loss
            self.batches += 1

        def rate(self):
            return self.samples / self.seconds

        def mean_loss(self):
            return self.loss_sum / self.batches
'''

SCALED = dict(lr="args.base_lr * job.size", value="meter.rate()")


def bench(tmp_path, modules=False, size="hvd.size()", **parts):
    text = BENCH
    for key, value in dict(SCALED, **parts).items():
        text = text.replace("{" + key + "}", value)
    (tmp_path / "bench.py").write_text(textwrap.dedent(text).lstrip("\n"))
    (tmp_path / "setup.py").write_text("")
    if modules:
        (tmp_path / "scaling").mkdir()
        (tmp_path / "scaling" / "__init__.py").write_text("")
        (tmp_path / "scaling" / "env.py").write_text(textwrap.dedent(ENV.replace("{size}", size)).lstrip("\n"))
        (tmp_path / "scaling" / "meters.py").write_text(textwrap.dedent(METERS).lstrip("\n"))
    return analyze(str(tmp_path / "bench.py"))[0]


def test_an_lr_factor_read_off_an_absent_modules_object_cannot_be_told(tmp_path):
    f = bench(tmp_path)[4]
    assert f.verdict == UNKNOWN and "describe_job" in f.evidence, f


def test_read_in_the_project_the_factor_is_the_number_of_ranks(tmp_path):
    assert bench(tmp_path, modules=True)[4].verdict == OK


def test_read_in_the_project_a_gpu_count_factor_is_no_scaling(tmp_path):
    f = bench(tmp_path, modules=True, size="torch.cuda.device_count()")[4]
    assert f.verdict == MISSING, f


def test_a_constant_factor_is_missing_the_scaling_whatever_the_module(tmp_path):
    assert bench(tmp_path, lr="args.base_lr * 2")[4].verdict == MISSING


def test_a_sum_of_an_absent_meters_value_cannot_be_told(tmp_path):
    f = bench(tmp_path)[8]
    assert f.verdict == UNKNOWN and "Meter()" in f.evidence, f


def test_read_in_the_project_a_clocked_rate_is_rightly_summed(tmp_path):
    assert bench(tmp_path, modules=True)[8].verdict == OK


def test_read_in_the_project_a_summed_mean_loss_is_wrong(tmp_path):
    f = bench(tmp_path, modules=True, value="meter.mean_loss()")[8]
    assert f.verdict == WRONG and "sums a metric over ranks" in f.evidence, f


WORKER = '''
    """ViT throughput run.  horovodrun -np 8 python train.py"""
    import argparse
    import math

    import torch
    import horovod.torch as hvd

    from tlog import launch


    def get_parser():
        p = argparse.ArgumentParser()
        p.add_argument("--global-batch", type=int, default=512)
        p.add_argument("--lr", type=float, default=1e-3, help="the LR of the global batch")
        p.add_argument("--epochs", type=int, default=3)
        return p


    def lr_at(step, total, base):
        return 0.5 * base * (1 + math.cos(math.pi * step / total))


    def worker(ctx, args):
        batch = {batch}
        data = torch.utils.data.TensorDataset(torch.randn(4096, 32), torch.randint(0, 10, (4096,)))
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=batch, sampler=sampler, drop_last=True)
        model = torch.nn.Linear(32, 10)
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        total = len(loader) * args.epochs
        step = 0
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                for g in opt.param_groups:
                    g["lr"] = lr_at(step, total, args.lr)
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
                step += 1
            if ctx.rank == 0:
                torch.save(model.state_dict(), "vit.pt")


    if __name__ == "__main__":
        launch.run(worker, get_parser().parse_args())
'''


def worker(tmp_path, batch):
    (tmp_path / "train.py").write_text(textwrap.dedent(WORKER.replace("{batch}", batch)).lstrip("\n"))
    (tmp_path / "setup.py").write_text("")
    return analyze(str(tmp_path / "train.py"))[0][4]


def test_a_global_batch_divided_by_an_absent_launchers_size_cannot_be_told(tmp_path):
    f = worker(tmp_path, "args.global_batch // ctx.size")
    assert f.verdict == UNKNOWN and "ctx.size" in f.evidence, f


def test_the_global_batch_undivided_keeps_the_schedule_wrong(tmp_path):
    f = worker(tmp_path, "args.global_batch")
    assert f.verdict == WRONG and "not scaled" in f.evidence, f
