"""Step 4, flat: an LR made with a call into the project's own module that is not there (`lr=args.lr *
get_world_size()` with `from utils import get_world_size` and no utils/): that function may return
hvd.size(), so the scaling cannot be told; it is not "missing". The bare `args.lr` still is.

Written from scratch for these tests: a detection script copied out of its repository, as users paste them."""
import textwrap

from hvdkit.check import MISSING, UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = '''
    """Polyp detection.  horovodrun -np 8 python train.py --lr 0.01"""
    import argparse

    import torch
    import horovod.torch as hvd

    from utils import get_world_size, is_main_process

    ap = argparse.ArgumentParser()
    ap.add_argument("--lr", type=float, default=0.01)
    args = ap.parse_args()
    hvd.init()
    torch.set_num_threads(1)
    x = torch.randn(4096, 16)[hvd.rank()::hvd.size()]
    model = torch.nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr={lr}, momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for i in range(0, len(x), 32):
        optimizer.zero_grad()
        model(x[i:i + 32]).pow(2).mean().backward()
        optimizer.step()
    if is_main_process():
        torch.save(model.state_dict(), "det.pt")
'''


def step4(tmp_path, lr):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{lr}", lr)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[4]


def test_an_lr_times_an_absent_modules_call_cannot_be_told(tmp_path):
    f = step4(tmp_path, "args.lr * get_world_size()")
    assert f.verdict == UNKNOWN and "get_world_size" in f.evidence, f


def test_the_bare_lr_is_missing_the_scaling(tmp_path):
    f = step4(tmp_path, "args.lr")
    assert f.verdict == MISSING, f
