"""`hvdkit check`'s crash finding: torch.distributed's default process group read where nothing creates it.
Horovod never calls init_process_group, so under horovodrun a DistributedSampler not told num_replicas and
rank (it asks torch.distributed), or a `dist.get_rank()` left from the project's DDP version, raises
ValueError ('Default process group has not been initialized', torch 2.13 on this machine). Correct twins:
the sampler told Horovod's size and rank; a helper that asks `dist.is_initialized()` first; a project that
does create the group.

Written from scratch for these tests: a segmentation project with its data and helpers in a package."""
from crash_scripts import Source, check_project

ENTRY = Source('''
    """Tile segmentation.  horovodrun -np 4 python train.py --epochs 5"""
    import argparse

    import torch
    import horovod.torch as hvd

    from seg.data import train_loader
    from seg.utils import is_main, save


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=5)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        loader, sampler = train_loader(32)
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 2, 1))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                total += torch.tensor([loss.item(), 1.0])
            total = hvd.allreduce(total, op=hvd.Sum)
            if is_main():
                print(f"epoch {epoch} loss {(total[0] / total[1]).item():.4f}")
            save(model.state_dict(), f"seg-{epoch}.pt")


    if __name__ == "__main__":
        main()
''')

DATA = Source('''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def train_loader(batch):
        x = torch.randn(512, 1, 16, 16, generator=torch.Generator().manual_seed(0))
        ds = TensorDataset(x, (x[:, 0] > 0).long())
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
        return DataLoader(ds, batch_size=batch, sampler=sampler), sampler
''')

UTILS = Source('''
    """Helpers kept from the project's DDP version."""
    import torch
    import torch.distributed as dist
    import horovod.torch as hvd


    def is_main():
        return hvd.rank() == 0


    def save(state, path):
        if is_main():
            torch.save(state, path)
''')

ERROR = "ValueError: Default process group has not been initialized, please make sure to call init_process_group."


def run(tmp_path, data=DATA, utils=UTILS):
    return check_project(tmp_path / "seg-proj", {"train.py": ENTRY, "seg/__init__.py": "", "seg/data.py": data,
                                                 "seg/utils.py": utils})


def test_the_correct_project_has_no_crash(tmp_path):
    crash, flagged, _ = run(tmp_path)
    assert crash is None and flagged == {}, (crash, flagged)


def test_a_sampler_not_told_num_replicas_and_rank_raises(tmp_path):
    data = DATA.replace("DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)",
                        "DistributedSampler(ds, shuffle=True)")
    crash, _, _ = run(tmp_path, data=data)
    assert crash is not None and crash["error"] == ERROR and crash["file"] == "seg/data.py", crash
    assert crash["line"] == 10, crash


def test_a_rank_query_left_from_ddp_raises(tmp_path):
    utils = UTILS.replace("    return hvd.rank() == 0\n", "    return dist.get_rank() == 0\n")
    crash, _, _ = run(tmp_path, utils=utils)
    assert crash is not None and crash["error"] == ERROR and crash["file"] == "seg/utils.py", crash


def test_a_query_behind_a_test_for_the_group_or_a_group_made_is_no_crash(tmp_path):
    asks = UTILS.replace("        return hvd.rank() == 0\n",
                         "        if not dist.is_initialized():\n            return hvd.rank() == 0\n"
                         "        return dist.get_rank() == 0\n")
    crash, _, _ = run(tmp_path, utils=asks)
    assert crash is None, crash
    made = UTILS.replace("    return hvd.rank() == 0\n", "    return dist.get_rank() == 0\n").replace(
        "    def is_main():", '    dist.init_process_group("gloo")\n\n\n    def is_main():')
    crash, _, _ = run(tmp_path / "made", utils=made)
    assert crash is None, crash
