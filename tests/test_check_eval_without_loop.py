"""Step 8: rank 0 runs the model once on the whole held-out array, in no loop of its own (`pred =
model(torch.from_numpy(x_test))` inside an `evaluate` under `torch.no_grad()`), and prints the score: the
job's metric, no averaging needed. The same evaluation on the rank's own shard of the test array, printed
by rank 0, is rank 0's part alone: flagged.

Written from scratch for these tests: a single-file tabular regression script, as students write them."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """House prices.  horovodrun -np 4 python train.py"""
    import numpy as np
    import torch
    import horovod.torch as hvd


    def split(n=20000, seed=7):
        rng = np.random.default_rng(seed)
        x = rng.normal(size=(n, 8)).astype(np.float32)
        y = (x @ rng.normal(size=(8, 1))).astype(np.float32)
        cut = n // 5
        return (x[cut:], y[cut:]), (x[:cut], y[:cut])


    def evaluate(model, x, y):
        model.eval()
        with torch.no_grad():
            pred = model(torch.from_numpy(x))
            return torch.sqrt(((pred - torch.from_numpy(y)) ** 2).mean()).item()


    def main():
        hvd.init()
        torch.set_num_threads(1)
        (x_tr, y_tr), (x_te, y_te) = split()
        x_tr, y_tr = x_tr[hvd.rank()::hvd.size()], y_tr[hvd.rank()::hvd.size()]
        {test_part}
        model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for epoch in range(10):
            model.train()
            for i in range(0, len(x_tr), 64):
                opt.zero_grad()
                xb, yb = torch.from_numpy(x_tr[i:i + 64]), torch.from_numpy(y_tr[i:i + 64])
                torch.nn.functional.mse_loss(model(xb), yb).backward()
                opt.step()
            if hvd.rank() == 0:
                print(f"epoch {epoch}: test RMSE {evaluate(model, x_te, y_te):.4f}")
                torch.save(model.state_dict(), "house.pt")


    if __name__ == "__main__":
        main()
'''


def step8(tmp_path, test_part):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{test_part}", test_part)).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings[8]


def test_rank_0_scoring_the_whole_test_array_is_the_jobs_metric(tmp_path):
    f = step8(tmp_path, "pass")
    assert f.verdict == OK and "whole" in f.evidence, f


def test_rank_0_scoring_its_own_shard_of_the_test_array_is_flagged(tmp_path):
    f = step8(tmp_path, "x_te, y_te = x_te[hvd.rank()::hvd.size()], y_te[hvd.rank()::hvd.size()]")
    assert f.verdict in FLAGGED, f
