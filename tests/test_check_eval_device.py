"""Step 8: evaluation batches moved to a device chosen by the local rank are still the same data on every rank.

`x[i:i + bs].to(device)` with `device = torch.device("cuda", hvd.local_rank())` places the batch; it does not
pick a part of the data. Every rank scoring the whole test set reports the job's accuracy from rank 0; a rank
scoring only its own slice of it must average. Written from scratch for these tests: a review-classifier
project whose environment set-up (init, pinning, the device) lives in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Review polarity.  horovodrun -np 4 python train.py --epochs 2"""
    import argparse

    import torch
    import horovod.torch as hvd

    from reviews.env import setup
    from reviews.data import load_split


    def score(model, xs, ys, device, bs=128):
        model.eval()
        hits = 0
        with torch.no_grad():
            for i in range(0, len(xs), bs):
                out = model(xs[i:i + bs].to(device))
                hits += (out.argmax(-1).cpu() == ys[i:i + bs]).sum().item()
        model.train()
        return hits / len(xs)


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=2)
        ap.add_argument("--lr", type=float, default=0.01)
        args = ap.parse_args()
        device = setup()
        train_x, train_y = load_split("train", hvd.rank(), hvd.size())
        test_x, test_y = {test}
        model = torch.nn.Sequential(torch.nn.Linear(30, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9)
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            for i in range(0, len(train_x), 64):
                opt.zero_grad()
                x, y = train_x[i:i + 64].to(device), train_y[i:i + 64].to(device)
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            acc = score(model, test_x, test_y, device)
            if hvd.rank() == 0:
                print(f"epoch {epoch} test accuracy {acc:.4f}")
                torch.save(model.state_dict(), "reviews.pt")


    if __name__ == "__main__":
        main()
'''

ENV = '''
    import torch
    import horovod.torch as hvd


    def setup():
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
            return torch.device("cuda", hvd.local_rank())
        return torch.device("cpu")
'''

DATA = '''
    import torch


    def load_split(name, rank=0, world=1):
        g = torch.Generator().manual_seed(0 if name == "train" else 1)
        x = torch.randn(4000, 30, generator=g)
        y = (x[:, 0] > 0).long()
        return x[rank::world], y[rank::world]
'''


def step8(tmp_path, test):
    files = {"train.py": ENTRY.replace("{test}", test), "reviews/__init__.py": "", "reviews/env.py": ENV,
             "reviews/data.py": DATA}
    return check_project(tmp_path, files)[2][8]


def test_every_rank_scoring_the_whole_test_set_on_its_device_is_ok(tmp_path):
    f = step8(tmp_path, 'load_split("test")')
    assert f.verdict == OK, f
    assert "whole evaluation data" in f.evidence, f


def test_each_rank_scoring_its_own_slice_is_flagged(tmp_path):
    f = step8(tmp_path, 'load_split("test", hvd.rank(), hvd.size())')
    assert f.verdict in FLAGGED, f


def test_a_device_named_by_a_string_of_the_local_rank_places_the_same_data(tmp_path):
    # `x.to(f"cuda:{hvd.local_rank()}")`: a placement, whatever spells the device
    env = ENV.replace('            return torch.device("cuda", hvd.local_rank())',
                      '            return f"cuda:{hvd.local_rank()}"').replace(
        '        return torch.device("cpu")', '        return "cpu"')
    files = {"train.py": ENTRY.replace("{test}", 'load_split("test")'), "reviews/__init__.py": "",
             "reviews/env.py": env, "reviews/data.py": DATA}
    f = check_project(tmp_path, files)[2][8]
    assert f.verdict == OK and "whole evaluation data" in f.evidence, f
    files["train.py"] = ENTRY.replace("{test}", 'load_split("test", hvd.rank(), hvd.size())')
    assert check_project(tmp_path / "sliced", files)[2][8].verdict in FLAGGED
