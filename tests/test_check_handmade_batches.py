"""`hvdkit check`, step 4, on a project that batches by hand (`for s in range(0, len(idx), bs): yield
x[idx[s:s + bs]]`) with a fixed global batch: the entry divides it by hvd.size() and hands the share to the
project's iterator by position. Each rank takes 1/size of the global batch, the averaged gradient is the
sequential batch's, and so is the LR: unscaled is right, scaled is hvd.size() times too large. A per-rank
batch that does not shrink with the number of ranks needs the LR scaled.

Written from scratch for these tests: a camera-pose regressor, package `posekit`."""
import textwrap

import pytest

from hvdkit.check.findings import MISSING, OK, WRONG
from hvdkit.check.static import analyze

ENTRY = textwrap.dedent("""
    import horovod.torch as hvd
    import torch

    from posekit.data import iterate
    from posekit.engine import train_one_epoch

    GLOBAL_BATCH = 64  # images per step over all workers, fixed when scaling out
    LR = 1e-4  # tuned for GLOBAL_BATCH


    def main():
        hvd.init()
        torch.set_num_threads(1)
        frames = torch.randn(8192, 3, 32, 32)
        poses = torch.randn(8192, 7)
        mine = list(range(hvd.rank(), len(frames), hvd.size()))
        batch_size = BATCH
        model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 7))
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=LR),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(30):
            train_one_epoch(model, opt, frames, poses, mine, batch_size)
""").lstrip()

DATA = textwrap.dedent("""
    def iterate(frames, poses, indices, batch_size):
        for s in range(0, len(indices), batch_size):
            chunk = indices[s:s + batch_size]
            yield frames[chunk], poses[chunk]
""").lstrip()

ENGINE = textwrap.dedent("""
    import torch

    from posekit.data import iterate


    def train_one_epoch(model, opt, frames, poses, indices, batch_size):
        for x, y in iterate(frames, poses, indices, batch_size):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
""").lstrip()


@pytest.mark.parametrize("batch, lr, verdict", [
    ("GLOBAL_BATCH // hvd.size()", "LR", OK),  # a fixed global batch: the sequential update, the sequential LR
    ("GLOBAL_BATCH", "LR", MISSING),  # every rank takes the whole batch: the global batch grows with the ranks
    # the LR grows with the ranks while the global batch does not: hvd.size() times the sequential step
    ("GLOBAL_BATCH // hvd.size()", "LR * hvd.size()", WRONG),
])
def test_a_fixed_global_batch_cut_by_hand_keeps_the_sequential_lr(tmp_path, batch, lr, verdict):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"posekit\"\n")
    (tmp_path / "train.py").write_text(ENTRY.replace("batch_size = BATCH", f"batch_size = {batch}").replace(
        "lr=LR)", f"lr={lr})"))
    (tmp_path / "posekit").mkdir()
    (tmp_path / "posekit" / "__init__.py").write_text("")
    (tmp_path / "posekit" / "data.py").write_text(DATA)
    (tmp_path / "posekit" / "engine.py").write_text(ENGINE)
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    assert findings[4].verdict == verdict
