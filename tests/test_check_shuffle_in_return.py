"""Step 3: a list shuffled in place, then partitioned in the helper's `return` statement
(`random.shuffle(items)`, `return items[rank::world]`). Seeded per rank (`random.seed(seed + hvd.rank())`),
each rank strides over its own permutation: the parts overlap and miss part of the data. Seeded alike, the
ranks cut the same permutation: disjoint parts.

Written from scratch for these tests: a speaker-embedding project with its list sharding in a data module."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

from crash_scripts import check_project

ENTRY = '''
    """x-vector training.  horovodrun -np 8 python train.py"""
    import random

    import torch
    import horovod.torch as hvd

    from spk.data import shard_list

    SEED = 1234


    def main():
        hvd.init()
        torch.set_num_threads(1)
        random.seed({seed})
        items = [(f"utt{i}.npy", i % 50) for i in range(10000)]
        mine = shard_list(items, hvd.rank(), hvd.size())
        model = torch.nn.Linear(40, 50)
        opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        for path, spk in mine:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(torch.randn(1, 40)), torch.tensor([spk])).backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(model.state_dict(), "xvector.pt")


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import random


    def shard_list(items, rank, world):
        items = list(items)
        random.shuffle(items)
        per = len(items) // world
        return items[rank::world][:per]
'''


def step3(tmp_path, seed):
    files = {"train.py": ENTRY.replace("{seed}", seed), "spk/__init__.py": "", "spk/data.py": DATA}
    findings = check_project(tmp_path, files, script="train.py")[2]
    return findings[3]


def test_a_shuffle_seeded_per_rank_before_the_returned_partition_overlaps(tmp_path):
    f = step3(tmp_path, "SEED + hvd.rank()")
    assert f.verdict in FLAGGED and "random.shuffle(items)" in f.evidence, f


def test_a_shuffle_seeded_alike_before_the_returned_partition_is_disjoint(tmp_path):
    f = step3(tmp_path, "SEED")
    assert f.verdict == OK, f


DATA_TWO = '''
    import random


    def list_items(items, shuffle=False):
        items = list(items)
        if shuffle:
            random.shuffle(items)
        return items


    def shard_list(items, rank, world):
        return list_items(items, shuffle=True)[rank::world]
'''

DATA_SPLIT = '''
    import random


    def list_items(items, shuffle=False):
        items = list(items)
        if shuffle:
            random.shuffle(items)
        return items


    def take_part(items, rank, world):
        return items[rank::world]


    def shard_list(items, rank, world):
        return take_part(list_items(items, shuffle=True), rank, world)
'''


def test_a_shuffle_in_one_helper_before_the_partition_returned_by_another_overlaps(tmp_path):
    for i, data in enumerate((DATA_TWO, DATA_SPLIT)):
        root = tmp_path / str(i)
        files = {"train.py": ENTRY.replace("{seed}", "SEED + hvd.rank()"), "spk/__init__.py": "",
                 "spk/data.py": data}
        (root / "spk").mkdir(parents=True)
        (root / "pyproject.toml").write_text("[project]\nname = 'spk'\n")
        for rel, source in files.items():
            (root / rel).write_text(textwrap.dedent(source).lstrip("\n"))
        findings, _, _ = analyze(str(root / "train.py"), root=str(root))
        assert findings[3].verdict in FLAGGED and "random.shuffle(items)" in findings[3].evidence, (i, findings[3])
