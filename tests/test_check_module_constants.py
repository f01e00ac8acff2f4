"""`hvdkit check` on where a project keeps its rank (blind sets zze and zzf, read at 6ec1625). Module
constants (zzf acme-speech):
`asrkd/env.py` holds `RANK = hvd.rank()`, `LOCAL_RANK = hvd.local_rank()`, `WORLD_SIZE = hvd.size()`, and the
entry and a data module read them as `from asrkd.env import LOCAL_RANK`. Pinned by LOCAL_RANK and sharded by
(WORLD_SIZE, RANK), the steps are right; pinned by RANK, the GPU is the global rank's. (zzf's module read them
before hvd.init(), a crash the checker reports; here env.py initialises first.) Written from scratch for these
tests; they fail with the rule taken back. A torch Sampler subclass of the project whose `__iter__` yields the
rank's slice (zze speechlab-ulm) partitions the data, though nothing calls `__iter__` by name.
"""
import textwrap

from crash_scripts import check_project

ENV = '''
    import horovod.torch as hvd

    hvd.init()
    RANK = hvd.rank()
    LOCAL_RANK = hvd.local_rank()
    WORLD_SIZE = hvd.size()
'''
DATA = '''
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from asrkd.env import RANK, WORLD_SIZE


    def make_loader(n, batch_size, train):
        ds = TensorDataset(torch.randn(n, 8), torch.randint(0, 4, (n,)))
        sampler = DistributedSampler(ds, num_replicas=WORLD_SIZE, rank=RANK, shuffle=train)
        return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=train), sampler
'''
ENTRY = '''
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from asrkd.data import make_loader
    from asrkd.env import PIN


    def main(epochs=2):
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(PIN)
        loader, sampler = make_loader(1024, 32, train=True)
        model = torch.nn.Linear(8, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for x, y in loader:
                opt.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                total += torch.tensor([loss.item() * len(y), len(y)])
            total = hvd.allreduce(total, op=hvd.Sum, name="loss")
            if hvd.rank() == 0:
                print(epoch, (total[0] / total[1]).item())
                torch.save(model.state_dict(), "student.pt")


    if __name__ == "__main__":
        main()
'''


def _files(pin):
    return {"asrkd/__init__.py": "", "asrkd/env.py": textwrap.dedent(ENV), "asrkd/data.py": textwrap.dedent(DATA),
            "run.py": textwrap.dedent(ENTRY).replace("PIN", pin)}


def test_ranks_kept_as_module_constants_pin_and_shard(tmp_path):
    crash, flagged, _ = check_project(tmp_path / "p", _files("LOCAL_RANK"), "run.py")
    assert crash is None and flagged == {}


def test_the_global_rank_kept_as_a_constant_is_no_gpu_of_the_node(tmp_path):
    crash, flagged, _ = check_project(tmp_path / "p", _files("RANK"), "run.py")
    assert crash is None and flagged == {2: "wrong"}


SAMPLER = '''
    import numpy as np
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, Sampler, TensorDataset


    class EpochPartitionSampler(Sampler):
        """The same seeded permutation on every rank; rank r takes the r-th equal slice."""

        def __init__(self, n, seed=0):
            self.n, self.seed, self.epoch = n, seed, 0
            self.per_rank = n // hvd.size()

        def set_epoch(self, epoch):
            self.epoch = epoch

        def __iter__(self):
            perm = np.random.default_rng(self.seed + self.epoch).permutation(self.n)
            lo = START
            return iter(perm[lo:lo + self.per_rank].tolist())

        def __len__(self):
            return self.per_rank


    def main(epochs=2):
        hvd.init()
        torch.set_num_threads(1)
        ds = TensorDataset(torch.randn(1024, 8), torch.randint(0, 4, (1024,)))
        sampler = EpochPartitionSampler(len(ds), seed=3)
        loader = DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)
        model = torch.nn.Linear(8, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            if hvd.rank() == 0:
                torch.save(model.state_dict(), "m.pt")


    if __name__ == "__main__":
        main()
'''


def test_a_sampler_class_whose_iter_takes_the_ranks_slice_partitions(tmp_path):
    """zze speechlab-ulm: a torch Sampler subclass of the project, whose `__iter__` (run by the DataLoader,
    never called by name) yields the rank's slice of a common permutation."""
    crash, flagged, findings = check_project(tmp_path / "p", _sampler_files("hvd.rank() * self.per_rank"))
    assert flagged == {} and findings[3].verdict == "ok" and "disjoint parts" in findings[3].evidence
    assert check_project(tmp_path / "q", _sampler_files("0"))[1] == {3: "missing"}  # every rank: the first slice


def _sampler_files(start):
    """The sampler class in the project's data module, the entry importing it (as zze's kws/data.py)."""
    text = textwrap.dedent(SAMPLER).replace("START", start)
    head, _, entry = text.partition("\n\ndef main(")
    imports = "import numpy as np\nimport torch\nimport horovod.torch as hvd\n" \
        "from torch.utils.data import DataLoader, TensorDataset\n\nfrom kws.data import EpochPartitionSampler\n"
    return {"kws/__init__.py": "", "kws/data.py": head + "\n", "train.py": imports + "\n\ndef main(" + entry}
