"""`rank, world = init_hvd()`, with the project's `init_hvd()` ending in `return hvd.rank(), hvd.size()`:
`rank` is the rank. So `if rank == 0 and os.path.exists(last): model.load_state_dict(...)` after the
broadcast is rank 0 alone resuming (step 6 wrong: the other ranks keep the weights broadcast before), and
the same load before the broadcast is the usual resume (ok).

Written from scratch for these tests: a PyTorch anomaly-detection project with a distributed helper module."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

DIST = '''
    import horovod.torch as hvd


    def init_hvd():
        hvd.init()
        return hvd.rank(), hvd.size()


    def broadcast_state(model, optimizer):
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
'''

MAIN = '''
    """Sensor anomaly model.  horovodrun -np 4 python main.py"""
    import os

    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import horovod.torch as hvd

    from tsad.dist import broadcast_state, init_hvd


    def main():
        rank, world = init_hvd()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(2048, 16), torch.randn(2048, 1))
        sampler = DistributedSampler(data, num_replicas=world, rank=rank)
        model = torch.nn.Linear(16, 1)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3 * world)
        last = "ckpt/last.pt"
        {first}
        {second}
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        for epoch in range(5):
            sampler.set_epoch(epoch)
            for x, y in DataLoader(data, batch_size=32, sampler=sampler):
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            if rank == 0:
                os.makedirs("ckpt", exist_ok=True)
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, last)


    if __name__ == "__main__":
        main()
'''

BROADCAST = "broadcast_state(model, optimizer)"
LOAD = ('if rank == 0 and os.path.exists(last):\n'
        '            model.load_state_dict(torch.load(last)["model"])')


def step6(tmp_path, first, second):
    (tmp_path / "tsad").mkdir()
    (tmp_path / "tsad" / "__init__.py").write_text("")
    (tmp_path / "tsad" / "dist.py").write_text(textwrap.dedent(DIST))
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN.replace("{first}", first).replace("{second}", second)))
    findings, _, _ = analyze(str(tmp_path / "main.py"), root=str(tmp_path))
    return findings[6]


def test_rank_0_loading_after_the_broadcast_is_flagged(tmp_path):
    f = step6(tmp_path, BROADCAST, LOAD)
    assert f.verdict in FLAGGED and "loads the checkpoint after the broadcast" in f.evidence, f


def test_rank_0_loading_before_the_broadcast_is_ok(tmp_path):
    f = step6(tmp_path, LOAD, BROADCAST)
    assert f.verdict == OK, f
