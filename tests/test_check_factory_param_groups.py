"""Crash finding and step 5: the optimizer is built in the project's factory from param groups of two
modules (`build_optimizer(field_net, coeffs, lr)`: a field network and learnable PDE coefficients), and the
script wraps it with `named_parameters=field_net.named_parameters()`. Horovod 0.28.1 raises ValueError
("named_parameters was specified, but one or more model parameters were not named") where it wraps: a crash,
and no gradient is averaged. Naming both modules' parameters is fine.

Written from scratch for these tests: `train.py` and a `pinnlab` package."""
import textwrap

from crash_scripts import check_project
from hvdkit.check import WRONG

OPTIM = '''
    import torch


    def build_optimizer(net, coeffs, lr, coeff_lr):
        groups = [{"params": net.parameters(), "lr": lr}, {"params": coeffs.parameters(), "lr": coeff_lr}]
        return torch.optim.Adam(groups)
'''

MODELS = '''
    import torch
    import torch.nn as nn


    class FieldNet(nn.Module):
        def __init__(self, width=64):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, width), nn.Tanh(), nn.Linear(width, 1))

        def forward(self, xt):
            return self.body(xt)


    class Coefficients(nn.Module):
        def __init__(self):
            super().__init__()
            self.log_kappa = nn.Parameter(torch.tensor(0.0))
'''

TRAIN = '''
    """Inverse heat problem.  horovodrun -np 4 python train.py"""
    import itertools

    import torch
    import horovod.torch as hvd

    from pinnlab.models import Coefficients, FieldNet
    from pinnlab.optim import build_optimizer


    def main():
        hvd.init()
        torch.set_num_threads(1)
        pts = torch.rand(8192, 2)[hvd.rank()::hvd.size()]
        net, coeffs = FieldNet(), Coefficients()
        optimizer = build_optimizer(net, coeffs, lr=1e-3 * hvd.size(), coeff_lr=1e-2 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters={named})
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_parameters(coeffs.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for step in range(2000):
            optimizer.zero_grad()
            loss = (net(pts) - coeffs.log_kappa.exp()).pow(2).mean()
            loss.backward()
            optimizer.step()
        loss = hvd.allreduce(loss.detach(), name="loss")
        if hvd.rank() == 0:
            print(float(loss))
            torch.save({"net": net.state_dict(), "coeffs": coeffs.state_dict()}, "pinn.pt")


    if __name__ == "__main__":
        main()
'''


def check(tmp_path, named):
    files = {"train.py": TRAIN.replace("{named}", named), "setup.py": "", "pinnlab/__init__.py": "",
             "pinnlab/models.py": MODELS, "pinnlab/optim.py": OPTIM}
    return check_project(tmp_path, {k: textwrap.dedent(v).lstrip("\n") for k, v in files.items()})


def test_naming_one_module_of_a_factorys_two_groups_crashes(tmp_path):
    crash, flagged, findings = check(tmp_path, "net.named_parameters()")
    assert crash and crash["line"] == 17 and "were not named" in crash["error"] and "coeffs" in crash["why"], crash
    assert flagged.get(5) == WRONG, findings[5]


def test_naming_both_modules_is_fine(tmp_path):
    crash, flagged, findings = check(tmp_path, "itertools.chain(net.named_parameters(), coeffs.named_parameters())")
    assert crash is None and 5 not in flagged, (crash, findings[5])
