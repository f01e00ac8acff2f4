"""Step 8: a rank's part's total divided by the whole data set's size, then averaged over the ranks.

Each rank evaluates its own shard (a DistributedSampler) and sums the loss and the hits over it. Divided by
`len(loader.dataset)`, the size of the whole set, each rank holds 1/N of its shard's mean; averaging those with
`hvd.allreduce`'s default op gives 1/N of the job's metric. Divided by the rank's own count (`len(sampler)`)
and then averaged, it is the job's mean over equal shards. Written from scratch for these tests: a project
whose evaluation lives in a package module and whose averaging helper lives in another."""

from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Tabular classifier.  horovodrun -np 4 python train.py --epochs 3"""
    import argparse

    import torch
    import horovod.torch as hvd

    from tab.data import loaders
    from tab.evaluate import evaluate


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=3)
        ap.add_argument("--lr", type=float, default=0.05)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        (train_loader, train_sampler), (val_loader, val_sampler) = loaders(128)
        model = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(args.epochs):
            train_sampler.set_epoch(epoch)
            model.train()
            for x, y in train_loader:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            loss, acc = evaluate(model, val_loader, val_sampler)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: val loss {loss:.4f} acc {acc:.3f}")
                torch.save(model.state_dict(), f"tab-{epoch}.pt")


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def _split(n, seed):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(n, 12, generator=g)
        return TensorDataset(x, x[:, :3].argmax(1))


    def loaders(batch):
        out = []
        for n, seed, shuffle in ((6000, 0, True), (1200, 1, False)):
            ds = _split(n, seed)
            sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
            out.append((DataLoader(ds, batch_size=batch, sampler=sampler), sampler))
        return out
'''

COMM = '''
    import torch
    import horovod.torch as hvd


    def metric_average(val, name):
        tensor = torch.tensor(val)
        return hvd.allreduce(tensor, name=name).item()
'''

EVALUATE = '''
    import torch
    import torch.nn.functional as F

    from tab.comm import metric_average


    def evaluate(model, loader, sampler):
        model.eval()
        loss, hits = 0.0, 0.0
        with torch.no_grad():
            for x, y in loader:
                out = model(x)
                loss += F.cross_entropy(out, y, reduction="sum").item()
                hits += (out.argmax(1) == y).float().sum().item()
        loss /= {count}
        hits /= {count}
        return metric_average(loss, "val_loss"), metric_average(hits, "val_acc")
'''


def step8(tmp_path, count):
    files = {"train.py": ENTRY, "tab/__init__.py": "", "tab/data.py": DATA, "tab/comm.py": COMM,
             "tab/evaluate.py": EVALUATE.replace("{count}", count)}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[8]


def test_a_shards_total_over_the_whole_sets_size_then_averaged_is_wrong(tmp_path):
    f = step8(tmp_path, "len(loader.dataset)")
    assert f.verdict in FLAGGED, f
    assert "whole data set's size" in f.evidence and "1/hvd.size()" in f.evidence, f
    assert f.line == 15 and f.file and f.file.endswith("evaluate.py"), f


def test_a_shards_total_over_its_own_count_then_averaged_is_exact(tmp_path):
    f = step8(tmp_path, "len(sampler)")
    assert f.verdict == OK, f
