"""Horovod reached as an attribute of the project's own module: `from kd import dist` then
`dist.hvd.size()`, where kd/dist.py imports `horovod.torch as hvd`. It is Horovod's size (blind set zf,
vislab-kd): an LR multiplied by it is scaled, a sampler given it and `dist.hvd.rank()` is a partition.

Written from scratch for these tests: a distillation project, `train.py` and `kd/dist.py`."""
from crash_scripts import check_project
from hvdkit.check import OK

TRAIN = '''
    """Student distillation.  horovodrun -np 4 python train.py"""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from kd import dist


    def main():
        dist.setup()
        data = TensorDataset(torch.randn(4096, 32), torch.randint(0, 10, (4096,)))
        sampler = DistributedSampler(data, num_replicas=dist.hvd.size(), rank=dist.hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Linear(32, 10)
        opt = torch.optim.SGD(model.parameters(), lr=0.05 * dist.hvd.size(), momentum=0.9)
        opt = dist.wrap(opt, model)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            correct = torch.zeros(())
            for x, y in loader:
                opt.zero_grad()
                out = model(x)
                torch.nn.functional.cross_entropy(out, y).backward()
                opt.step()
                correct += (out.argmax(1) == y).sum()
            acc = dist.hvd.allreduce(correct / len(sampler))
            if dist.hvd.rank() == 0:
                print(epoch, acc.item())
                torch.save(model.state_dict(), "student.pt")


    if __name__ == "__main__":
        main()
'''

DIST = '''
    import horovod.torch as hvd
    import torch


    def setup():
        hvd.init()
        torch.set_num_threads(1)


    def wrap(opt, model):
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
'''


def test_horovod_as_an_attribute_of_a_project_module_is_horovod(tmp_path):
    files = {"train.py": TRAIN, "kd/__init__.py": "", "kd/dist.py": DIST}
    found = check_project(tmp_path, files)[2]
    assert found[3].verdict == OK and found[4].verdict == OK and found[8].verdict == OK, (found[3], found[4], found[8])
