"""Step 8: a model run once per epoch to draw samples does not make the epoch loop a loop over batches.

The trainer draws a sample grid from a fixed noise batch once per epoch, beside the report of the
validation metrics (and logs the training loss, averaged, every 50 batches). The validation loader is
sharded, and the report prints rank 0's own metrics: not averaged. A report in a loop over batches is
progress (not judged); this one, at the epoch's level, is the metric. Averaged with an allreduce of the sums
and counts, it is right. Written from scratch for these tests: a small autoencoder project whose evaluation
lives in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Autoencoder with sample grids.  horovodrun -np 4 python train.py --epochs 5"""
    import argparse

    import torch
    import horovod.torch as hvd

    from aegrid.data import loaders
    from aegrid.evaluate import evaluate


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=5)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        train_loader, val_loader = loaders(64)
        net = torch.nn.Sequential(torch.nn.Linear(16, 4), torch.nn.Tanh(), torch.nn.Linear(4, 16))
        opt = torch.optim.Adam(net.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        fixed = torch.randn(8, 16)
        for epoch in range(args.epochs):
            train_loader.sampler.set_epoch(epoch)
            for i, (x,) in enumerate(train_loader):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(net(x), x)
                loss.backward()
                opt.step()
                if i % 50 == 0:
                    avg = hvd.allreduce(loss.detach(), name="loss").item()
                    if hvd.rank() == 0:
                        print(f"step {i} loss {avg:.4f}")
            metrics = evaluate(net, val_loader)
            with torch.no_grad():
                grid = net(fixed)
            if hvd.rank() == 0:
                print(f"epoch {epoch} " + " ".join(f"{k} {v:.4f}" for k, v in metrics.items()))
                torch.save({"net": net.state_dict(), "samples": grid}, "aegrid.pt")


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def loaders(batch):
        out = []
        for n, seed in ((4096, 0), (1024, 1)):
            g = torch.Generator().manual_seed(seed)
            ds = TensorDataset(torch.randn(n, 16, generator=g))
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=seed == 0)
            out.append(DataLoader(ds, batch_size=batch, sampler=sampler))
        return out
'''

EVALUATE = '''
    import torch
    import horovod.torch as hvd


    @torch.no_grad()
    def evaluate(net, loader):
        err, n = torch.zeros(()), torch.zeros(())
        for (x,) in loader:
            err += torch.nn.functional.mse_loss(net(x), x, reduction="sum")
            n += x.numel()
        {reduce}
        return {"recon": (err / n).item()}
'''

SUMMED = ('err = hvd.allreduce(err, op=hvd.Sum)\n'
          '        n = hvd.allreduce(n, op=hvd.Sum)')


def step8(tmp_path, reduce):
    files = {"train.py": ENTRY, "aegrid/__init__.py": "", "aegrid/data.py": DATA,
             "aegrid/evaluate.py": EVALUATE.replace("{reduce}", reduce)}
    return check_project(tmp_path, files)[2][8]


def test_rank_0s_shard_metrics_beside_an_epoch_sample_are_flagged(tmp_path):
    f = step8(tmp_path, "pass")
    assert f.verdict in FLAGGED, f


def test_the_same_metrics_summed_over_ranks_are_ok(tmp_path):
    assert step8(tmp_path, SUMMED).verdict == OK
