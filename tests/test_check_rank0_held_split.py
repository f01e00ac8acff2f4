"""Step 8: the test split is loaded on rank 0 only (`test = load_split("test") if rank == 0 else None`) and
rank 0 evaluates all of it: the rank decides whether the data is there, not which part of it, so the metric
rank 0 prints is the whole split's. A split taken by the rank (`[rank::size]`) and printed unaveraged is
each rank's own part.

Written from scratch for these tests: a flat pose-regression script."""
import textwrap

from hvdkit.check import MISSING, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Camera pose regression.  horovodrun -np 4 python main.py"""
    import torch
    import horovod.torch as hvd


    def load_split(name):
        g = torch.Generator().manual_seed(0 if name == "train" else 1)
        return torch.randn(4096, 64, generator=g), torch.randn(4096, 7, generator=g)


    def iterate(frames, idx, batch):
        x, y = frames
        for s in range(0, len(idx), batch):
            yield x[idx[s:s + batch]], y[idx[s:s + batch]]


    @torch.no_grad()
    def median_error(model, frames):
        errors = []
        for x, y in iterate(frames, list(range(len(frames[0]))), 256):
            errors.append((model(x) - y).norm(dim=1))
        return torch.cat(errors).median().item()


    def main(epochs=30):
        hvd.init()
        torch.set_num_threads(1)
        rank, size = hvd.rank(), hvd.size()
        x, y = load_split("train")
        x, y = x[rank::size], y[rank::size]
        test = {test}
        model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 7))
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * size),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(epochs):
            for s in range(0, len(x), 64):
                opt.zero_grad()
                (model(x[s:s + 64]) - y[s:s + 64]).pow(2).mean().backward()
                opt.step()
            if {who}:
                print(f"epoch {epoch} test median error {median_error(model, test):.3f}")
                if rank == 0:
                    torch.save(model.state_dict(), "pose.pt")


    if __name__ == "__main__":
        main()
'''


def step8(tmp_path, test, who):
    path = tmp_path / "main.py"
    path.write_text(textwrap.dedent(SCRIPT.replace("{test}", test).replace("{who}", who)).lstrip("\n"))
    return analyze(str(path))[0][8]


def test_the_whole_split_held_by_rank_0_alone_is_the_jobs_metric(tmp_path):
    f = step8(tmp_path, 'load_split("test") if rank == 0 else None', "rank == 0")
    assert f.verdict == OK, f


def test_each_ranks_part_of_the_split_printed_unaveraged_is_its_own(tmp_path):
    f = step8(tmp_path, 'tuple(t[rank::size] for t in load_split("test"))', "True")
    assert f.verdict == MISSING, f
