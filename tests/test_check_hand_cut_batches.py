"""Batches cut by hand, `perm[s * LOCAL_BATCH:(s + 1) * LOCAL_BATCH]`, have the width LOCAL_BATCH: with
LOCAL_BATCH = GLOBAL_BATCH // hvd.size() the global batch is fixed and the LR tuned for it is right unscaled
(blind sets ze, tacc; zf, ens-lab: a global batch cut first, then each rank's block of it). A rank's block of
the whole data set, `x[rank * per:(rank + 1) * per]`, is a partition, not a batch: with minibatches of a
fixed per-rank size the LR must still grow.

Written from scratch for these tests: a flat PyTorch regression script."""
import textwrap

from hvdkit.check import MISSING, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Regression MLP.  ibrun python train.py  (GLOBAL_BATCH exported by the job script)"""
    import os

    import torch
    import horovod.torch as hvd

    hvd.init()
    torch.set_num_threads(1)
    GLOBAL_BATCH = int(os.environ.get("GLOBAL_BATCH", "1024"))
    LOCAL_BATCH = {local}
    x, y = torch.randn(65536, 16), torch.randn(65536, 1)
    per = len(x) // hvd.size()
    x, y = x[hvd.rank() * per:(hvd.rank() + 1) * per], y[hvd.rank() * per:(hvd.rank() + 1) * per]
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(20):
        g = torch.Generator().manual_seed(epoch + hvd.rank())
        perm = torch.randperm(len(x), generator=g)
        for s in range(len(x) // LOCAL_BATCH):
            idx = perm[s * LOCAL_BATCH:(s + 1) * LOCAL_BATCH]
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
        mean = hvd.allreduce(loss.detach())
        if hvd.rank() == 0:
            print(epoch, mean.item())
            torch.save(model.state_dict(), "mlp.pt")
'''


def check(tmp_path, local):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{local}", local)).lstrip())
    return analyze(str(path))[0][4]


def test_hand_cut_batches_of_a_fixed_global_batch_keep_the_lr(tmp_path):
    f4 = check(tmp_path, "GLOBAL_BATCH // hvd.size()")
    assert f4.verdict == OK and "global batch is fixed" in f4.evidence, f4


def test_hand_cut_batches_of_a_fixed_per_rank_size_need_the_scaling(tmp_path):
    f4 = check(tmp_path, "128")
    assert f4.verdict == MISSING, f4
