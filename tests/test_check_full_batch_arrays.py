"""Step 4: full-batch training on this rank's part of the arrays, cut inside a loader the project calls.

A physics-informed fit takes every point it holds at every step: `pts, vals = load_points(path, rank, size)`
returns `pts[mine], vals[mine]` with `mine` this rank's block of indices, and the loss is a closure over the
two arrays. The averaged gradient is then the whole data set's, as in the sequential run, so the LR must not
be scaled by the number of ranks. Mini-batches drawn from the same arrays inside the loop make the global
batch grow with the ranks again. Written from scratch for these tests: a small package with the loader in its
own module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Steady heat fit.  horovodrun -np 4 python fit.py --iters 5000"""
    import argparse

    import numpy as np
    import torch
    import horovod.torch as hvd

    from heatfit.data import load_points


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--points", default="data/points.npz")
        ap.add_argument("--iters", type=int, default=5000)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        pts, vals = load_points(args.points, hvd.rank(), hvd.size())
        pts, vals = torch.from_numpy(pts), torch.from_numpy(vals)
        net = torch.nn.Sequential(torch.nn.Linear(2, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        opt = torch.optim.Adam(net.parameters(), lr={lr})
        opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())

        def loss_fn():
            {draw}
            return ((net(p) - v) ** 2).mean()

        for it in range(args.iters):
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            opt.step()
            loss = hvd.allreduce(loss.detach()).item()
            if hvd.rank() == 0 and it % 500 == 0:
                print(f"it {it} loss {loss:.3e}")
        if hvd.rank() == 0:
            torch.save(net.state_dict(), "heatfit.pt")


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import numpy as np


    def load_points(path, rank, size):
        blob = np.load(path)
        pts = blob["xy"].astype(np.float32)
        vals = blob["T"].astype(np.float32).reshape(-1, 1)
        mine = np.array_split(np.arange(len(pts)), size)[rank]
        return pts[mine], vals[mine]
'''

WHOLE = "p, v = pts, vals"
DRAWN = "idx = torch.randint(0, len(pts), (256,))\n            p, v = pts[idx], vals[idx]"


def step4(tmp_path, lr, draw):
    files = {"fit.py": ENTRY.replace("{lr}", lr).replace("{draw}", draw), "heatfit/__init__.py": "",
             "heatfit/data.py": DATA}
    return check_project(tmp_path, files, script="fit.py")[2][4]


def test_full_batch_on_this_ranks_arrays_with_the_lr_unscaled_is_ok(tmp_path):
    f = step4(tmp_path, "args.lr", WHOLE)
    assert f.verdict == OK and "full-batch" in f.evidence, f


def test_mini_batches_drawn_from_the_arrays_need_the_lr_scaled(tmp_path):
    assert step4(tmp_path, "args.lr", DRAWN).verdict in FLAGGED
    assert step4(tmp_path, "args.lr * hvd.size()", DRAWN).verdict == OK
