"""An LR warm-up made by a factory of the project: `LambdaLR(optimizer, warmup_lambda(iters, world))`, where
`warmup_lambda` returns a nested function ramping the multiplier from 1 to `world_size` (issue 39, classes 1
and 4). With the module read, the factor it settles at grows with hvd.size(): scaled. A plain warm-up to 1
leaves the LR unscaled (flagged). The script alone, its `tools` module absent, cannot say: cannot tell.

Written from scratch for these tests: a torch project with a `tools` package."""
import textwrap

import pytest

from crash_scripts import Source, check_project
from hvdkit.check import UNKNOWN
from hvdkit.check.static import analyze

TOOLS = Source('''
    import horovod.torch as hvd
    import torch


    def init_horovod():
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        return hvd.rank(), hvd.size()


    def warmup_lambda(warmup_iters, world_size):
        """Ramp the LR multiplier over warmup_iters."""
        def fn(it):
            if it >= warmup_iters:
                return #SETTLE#
            return #RAMP#
        return fn
''')

MAIN = '''
    """Segment tables: horovodrun -np 2 python main.py"""
    import argparse

    import numpy as np
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from tools.dist import init_horovod, warmup_lambda


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--data", default="data/tables.npz")
        ap.add_argument("--lr", type=float, default=1e-4)
        ap.add_argument("--warmup-iters", type=int, default=500)
        ap.add_argument("--epochs", type=int, default=3)
        args = ap.parse_args()
        rank, world = init_horovod()
        torch.set_num_threads(1)
        blob = np.load(args.data)
        data = TensorDataset(torch.from_numpy(blob["x"]).float(), torch.from_numpy(blob["y"]))
        sampler = DistributedSampler(data, num_replicas=world, rank=rank)
        loader = DataLoader(data, batch_size=16, sampler=sampler)
        model = torch.nn.Linear(data.tensors[0].shape[1], 2)
        base = torch.optim.Adam(model.parameters(), lr=args.lr)
        optimizer = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters())
        sched = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_lambda(args.warmup_iters, world))
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            total = torch.zeros(2)
            for x, y in loader:
                loss = F.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                sched.step()
                total += torch.stack([loss.detach(), torch.ones(())])
            total = hvd.allreduce(total, op=hvd.Sum, name="loss")
            if rank == 0:
                print(epoch, (total[0] / total[1]).item())
                torch.save(model.state_dict(), "tables.pt")


    if __name__ == "__main__":
        main()
'''


def project(settle, ramp):
    return {"main.py": MAIN, "tools/__init__.py": "",
            "tools/dist.py": TOOLS.replace("#SETTLE#", settle).replace("#RAMP#", ramp)}


def test_a_factory_whose_function_settles_at_the_number_of_ranks_scales_the_lr(tmp_path):
    ramp = "1.0 + (world_size - 1.0) * it / warmup_iters"
    crash, flagged, findings = check_project(tmp_path, project("float(world_size)", ramp), script="main.py")
    assert crash is None and flagged == {}
    assert "LambdaLR" in findings[4].evidence


def test_a_factory_whose_function_warms_up_to_one_leaves_the_lr_unscaled(tmp_path):
    crash, flagged, _ = check_project(tmp_path, project("1.0", "(it + 1) / warmup_iters"), script="main.py")
    assert crash is None and flagged == {4: "missing"}


def test_the_factory_of_a_module_that_is_not_there_cannot_be_told(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"tables\"\n")
    path = tmp_path / "main.py"
    path.write_text(textwrap.dedent(MAIN).lstrip())
    findings, _, info = analyze(str(path))
    assert info["crash"] is None
    assert findings[4].verdict == UNKNOWN and "`warmup_lambda(...)`" in findings[4].evidence


# The factor's value once the warm-up is over is the return under `if it >= warmup_iters`, written first here:
# not the ramp, which is the last return by line (it read the ramp before the rule).
@pytest.mark.parametrize("settle, ramp, flagged", [
    ("float(world_size)", "(it + 1) / warmup_iters", {}),
    ("1.0", "world_size * (it + 1) / warmup_iters", {4: "missing"}),
])
def test_the_factor_settles_at_the_return_past_the_warmup_not_the_last_by_line(tmp_path, settle, ramp, flagged):
    crash, found, _ = check_project(tmp_path, project(settle, ramp), script="main.py")
    assert crash is None and found == flagged
