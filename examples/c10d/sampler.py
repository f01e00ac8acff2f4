"""The course's partitioning tasks: which items of SimpleDataSet each rank sees, and in which batches.

    mpirun -n 2 python examples/c10d/sampler.py

Each row is one DataLoader setting, one rank: `<setting>  rank <r>: <items or batches>`. Rows are
gathered on rank 0 and printed in order. Shards are disjoint and cover the dataset when its length
divides by the number of replicas; otherwise drop_last=False pads with the first items again and
drop_last=True drops the tail. shuffle=True permutes with a seed shared by all ranks, so the shards
still fit together, and a new permutation per epoch (set_epoch). The num_replicas=3 rows pass
num_replicas and rank explicitly: the sampler needs no process group and can be studied alone.
"""

import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, Dataset, DistributedSampler

from c10d_common import distributed, make_parser
from hvdkit.common.argtypes import positive_int


class SimpleDataSet(Dataset):
    """The course's dataset: item i is 10 * i."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return index * 10


def items(dataset, sampler):
    # batch_size=None: the loader yields single items in the sampler's order.
    return [int(v) for v in DataLoader(dataset, sampler=sampler, batch_size=None)]


def batches(dataset, batch_sampler):
    return [b.tolist() for b in DataLoader(dataset, batch_sampler=batch_sampler)]


def rows_of(dataset, rank, batch_size, seed):
    """(setting, rank, result) rows of this rank, num_replicas and rank taken from the process group."""
    rows = [(f"shuffle=False drop_last={drop_last}",
             items(dataset, DistributedSampler(dataset, shuffle=False, drop_last=drop_last)))
            for drop_last in (False, True)]
    shuffled = DistributedSampler(dataset, shuffle=True, seed=seed)
    for epoch in (0, 1):
        shuffled.set_epoch(epoch)  # without it every epoch repeats epoch 0's order
        rows.append((f"shuffle=True seed={seed} epoch={epoch}", items(dataset, shuffled)))
    for drop_last in (False, True):
        batch_sampler = BatchSampler(DistributedSampler(dataset, shuffle=False), batch_size, drop_last=drop_last)
        rows.append((f"BatchSampler batch_size={batch_size} drop_last={drop_last}", batches(dataset, batch_sampler)))
    return [(setting, rank, result) for setting, result in rows]


def main(argv=None):
    parser = make_parser(__doc__)
    parser.add_argument("--length", type=positive_int, default=11, help="items in SimpleDataSet (odd: shows padding)")
    parser.add_argument("--batch-size", type=positive_int, default=4,
                        help="per-rank batch size of the BatchSampler rows")
    parser.add_argument("--seed", type=int, default=0, help="shuffle seed, the same on every rank")
    args = parser.parse_args(argv)
    dataset = SimpleDataSet(args.length)
    with distributed(args.backend) as (rank, size):
        rows = rows_of(dataset, rank, args.batch_size, args.seed)
        gathered = [None] * size
        dist.all_gather_object(gathered, rows)
        if rank != 0:
            return
        print(f"SimpleDataSet({args.length}): item i is 10*i; {size} ranks")
        width = max(len(setting) for setting, _, _ in gathered[0])
        for i in range(len(rows)):
            for rank_rows in gathered:
                setting, r, result = rank_rows[i]
                print(f"{setting:<{width}}  rank {r}: {result}")
        setting = "num_replicas=3 shuffle=False"
        for r in range(3):
            alone = DistributedSampler(dataset, num_replicas=3, rank=r, shuffle=False)
            print(f"{setting:<{width}}  rank {r}: {items(dataset, alone)}")


if __name__ == "__main__":
    main()
