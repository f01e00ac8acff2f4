"""The rank and the size read off an instance of the project's runtime class: `rt = Runtime(seed=3)` whose
`__init__` runs `hvd.init()` and sets `self.rank, self.size = hvd.rank(), hvd.size()`, then
`make_loader(ds, bs, rt.rank, rt.size)` building `DistributedSampler(ds, num_replicas=world, rank=rank)`.
`rt.size` is what Runtime's methods set on `self.size`: the sampler is a partition (ok). A runtime that sets
fixed numbers splits nothing by rank (flagged).

Written from scratch for these tests: a torch project whose runtime and data helpers live in a package."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

RUNTIME = '''
    import torch
    import horovod.torch as hvd


    class Runtime:
        """Owns the distributed context and the device of a run."""

        def __init__(self, seed=0):
            hvd.init()
            self.rank, self.size = {values}
            if torch.cuda.is_available():
                torch.cuda.set_device(hvd.local_rank())
            torch.set_num_threads(1)
            torch.manual_seed(seed)
'''

DATA = '''
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler


    def make_loader(ds, batch_size, rank, world, train):
        sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train)
        return DataLoader(ds, batch_size=batch_size, sampler=sampler), sampler
'''

TRAIN = '''
    """Tile segmentation.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import TensorDataset

    from tiles.data import make_loader
    from tiles.runtime import Runtime


    def main():
        rt = Runtime(seed=3)
        ds = TensorDataset(torch.randn(2048, 8), torch.randint(0, 2, (2048,)))
        loader, sampler = make_loader(ds, 64, rt.rank, rt.size, train=True)
        model = torch.nn.Linear(8, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(3):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
            avg = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(f"epoch {epoch} loss {avg.item():.4f}")
                torch.save(model.state_dict(), "tiles.pt")


    if __name__ == "__main__":
        main()
'''


def step3(tmp_path, values):
    files = {"train.py": TRAIN, "tiles/__init__.py": "", "tiles/data.py": DATA,
             "tiles/runtime.py": RUNTIME.replace("{values}", values)}
    return check_project(tmp_path, files)[2][3]


def test_the_rank_and_size_the_runtime_sets_on_self_make_a_partition(tmp_path):
    f = step3(tmp_path, "hvd.rank(), hvd.size()")
    assert f.verdict == OK, f


def test_fixed_numbers_set_on_self_split_nothing_by_rank(tmp_path):
    assert step3(tmp_path, "0, 1").verdict in FLAGGED
