"""Step 6 with the project's own helper not there (a script checked alone): `sync_model(model)` as a statement
of its own, before the training, handed the model, can only change the model in place, as a broadcast from
rank 0 does: "cannot tell", naming the call, not "missing". The same call after the training loop (an export,
a report) cannot be the starting broadcast: still missing.

Written from scratch for these tests: a PyTorch denoising trainer whose helpers live in a package that is
not beside the script."""
import textwrap

from hvdkit.check import FLAGGED, UNKNOWN
from hvdkit.check.static import analyze

SCRIPT = '''
    """CT denoising.  horovodrun -np 4 python train.py"""
    import argparse

    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader
    import horovod.torch as hvd

    from ctkit.data import slices_for
    from ctkit.dist import sync_model

    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=1e-4)
    args = p.parse_args()

    hvd.init()
    torch.set_num_threads(1)
    data = slices_for("train", hvd.rank(), hvd.size())
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 1, 3, padding=1))
    {before}
    opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    {after}
    if hvd.rank() == 0:
        torch.save(model.state_dict(), "denoise.pt")
'''


def step6(tmp_path, before="pass", after="pass"):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{before}", before).replace("{after}", after)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[6]


def test_a_helper_handed_the_model_before_training_could_broadcast(tmp_path):
    f = step6(tmp_path, before="sync_model(model)")
    assert f.verdict == UNKNOWN and "sync_model" in f.evidence, f


def test_the_same_helper_after_training_is_no_starting_broadcast(tmp_path):
    f = step6(tmp_path, after="sync_model(model)")
    assert f.verdict in FLAGGED, f


def test_a_helper_whose_value_is_used_is_no_broadcast(tmp_path):
    f = step6(tmp_path, before="n_params = sync_model(model)")
    assert f.verdict in FLAGGED, f
