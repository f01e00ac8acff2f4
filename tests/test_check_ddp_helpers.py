"""DDP-era helpers kept in a script ported to Horovod (issue 39, classes 1 and 4): `is_main_process()`
returns `get_rank() == 0`, and `get_rank()` returns `dist.get_rank()` only when torch.distributed is
initialised. A Horovod script never calls `init_process_group`, so `get_rank()` is 0 on every rank and
`save_on_master` saves on every rank: wrong, however rank-like the helpers' names and calls look. Moved to
Horovod with a module flag that init sets under `global` (`_INITIALIZED = True`, then `hvd.rank() if
_INITIALIZED else 0`), the same helpers are rank 0's: ok.

A CIFAR project written from scratch for these tests (train.py, common/utils.py)."""
import textwrap

from crash_scripts import Source, check_project

TRAIN = Source(textwrap.dedent("""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from common.utils import init_distributed, save_on_master


    def main():
        init_distributed()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(1024, 3 * 8 * 8), torch.randint(0, 10, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=64, sampler=sampler)
        model = torch.nn.Sequential(torch.nn.Linear(192, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size(), momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(5):
            sampler.set_epoch(epoch)
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            save_on_master({"model": model.state_dict(), "epoch": epoch}, "ckpt/last.pt")


    if __name__ == "__main__":
        main()
""").lstrip())

DDP_UTILS = textwrap.dedent("""
    import os

    import torch
    import torch.distributed as dist
    import horovod.torch as hvd


    def init_distributed():
        hvd.init()


    def is_dist_avail_and_initialized():
        if not dist.is_available():
            return False
        if not dist.is_initialized():
            return False
        return True


    def get_rank():
        if not is_dist_avail_and_initialized():
            return 0
        return dist.get_rank()


    def is_main_process():
        return get_rank() == 0


    def save_on_master(state, path):
        if is_main_process():
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            torch.save(state, path)
""").lstrip()

HVD_UTILS = textwrap.dedent("""
    import os

    import torch
    import horovod.torch as hvd

    _INITIALIZED = False


    def init_distributed():
        global _INITIALIZED
        hvd.init()
        _INITIALIZED = True


    def get_rank():
        return hvd.rank() if _INITIALIZED else 0


    def is_main_process():
        return get_rank() == 0


    def save_on_master(state, path):
        if is_main_process():
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            torch.save(state, path)
""").lstrip()


def test_ddp_helpers_without_a_process_group_save_on_every_rank(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"train.py": TRAIN, "common/__init__.py": "",
                                                        "common/utils.py": DDP_UTILS})
    assert flagged == {7: "wrong"} and "every rank writes" in findings[7].evidence


def test_helpers_moved_to_horovod_with_a_global_flag_save_on_rank0(tmp_path):
    crash, flagged, findings = check_project(tmp_path, {"train.py": TRAIN, "common/__init__.py": "",
                                                        "common/utils.py": HVD_UTILS})
    assert (crash, flagged) == (None, {}) and "rank 0 writes" in findings[7].evidence
