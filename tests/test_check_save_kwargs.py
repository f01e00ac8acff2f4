"""Step 7 through a checkpoint helper that takes the state as keywords (`def save_ckpt(path, **state):
torch.save(state, tmp); os.replace(tmp, path)`) and is called with `model=model.state_dict(),
optimizer=optimizer.state_dict()`: what it writes is the model's state, so the checkpoint is there (rank 0
writes: ok), and written outside the rank guard it is every rank's (wrong). Before, the keywords were not
followed and the step read "no checkpoint is written".

A small project written from scratch for these tests (train.py, utils.py)."""
import textwrap

from crash_scripts import Source, check_project

TRAIN = Source(textwrap.dedent("""
    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from utils import save_ckpt


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = TensorDataset(torch.randn(1024, 8), torch.randint(0, 3, (1024,)))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(8, 3)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size(), momentum=0.9)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        for epoch in range(4):
            sampler.set_epoch(epoch)
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            SAVE


    if __name__ == "__main__":
        main()
""").lstrip())

UTILS = textwrap.dedent("""
    import os

    import torch


    def save_ckpt(path, **state):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        tmp = path + ".tmp"
        torch.save(state, tmp)
        os.replace(tmp, path)
""").lstrip()

SAVE = "save_ckpt('ckpt/last.pt', model=model.state_dict(), optimizer=optimizer.state_dict(), epoch=epoch)"


def test_a_keyword_state_helper_under_the_rank_guard_is_rank0(tmp_path):
    guarded = TRAIN.replace("SAVE", "if hvd.rank() == 0:\n            " + SAVE)
    crash, flagged, findings = check_project(tmp_path, {"train.py": guarded, "utils.py": UTILS})
    assert (crash, flagged) == (None, {}) and "rank 0 writes" in findings[7].evidence


def test_the_same_helper_on_every_rank_is_wrong(tmp_path):
    crash, flagged, _ = check_project(tmp_path, {"train.py": TRAIN.replace("SAVE", SAVE), "utils.py": UTILS})
    assert flagged == {7: "wrong"}
