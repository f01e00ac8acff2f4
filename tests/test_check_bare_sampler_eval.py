"""Step 8: the validation loader takes torch's `DistributedSampler(val_set, shuffle=False)` without
num_replicas and rank (left from a DDP version). Where it runs, it splits the set by torch.distributed's
rank, so each rank's validation loss is its own part's: printed on rank 0 unaveraged, it is missing its
average. (Under Horovod with no process group it raises; the crash finding reports that.) A validation
loader with no sampler reads the whole set on every rank: ok.

Written from scratch for these tests: a flat autoencoder script."""
import textwrap

from hvdkit.check import MISSING, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Face autoencoder.  horovodrun -np 4 python train.py"""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd

    hvd.init()
    torch.set_num_threads(1)
    train_set = TensorDataset(torch.randn(4096, 64))
    val_set = TensorDataset(torch.randn(512, 64))
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    train_loader = DataLoader(train_set, batch_size=64, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=64{val})
    model = torch.nn.Sequential(torch.nn.Linear(64, 16), torch.nn.ReLU(), torch.nn.Linear(16, 64))
    opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for epoch in range(20):
        train_sampler.set_epoch(epoch)
        for (x,) in train_loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), x).backward()
            opt.step()
        val_loss, n = 0.0, 0
        with torch.no_grad():
            for (x,) in val_loader:
                val_loss += torch.nn.functional.mse_loss(model(x), x).item() * len(x)
                n += len(x)
        if hvd.rank() == 0:
            print(f"epoch {epoch} val {val_loss / n:.4f}")
            torch.save(model.state_dict(), "ae.pt")
'''


def step8(tmp_path, val):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{val}", val)).lstrip("\n"))
    return analyze(str(path))[0][8]


def test_a_bare_distributed_sampler_splits_the_validation_set(tmp_path):
    assert step8(tmp_path, ", sampler=DistributedSampler(val_set, shuffle=False)").verdict == MISSING


def test_no_sampler_reads_the_whole_validation_set(tmp_path):
    assert step8(tmp_path, "").verdict == OK
