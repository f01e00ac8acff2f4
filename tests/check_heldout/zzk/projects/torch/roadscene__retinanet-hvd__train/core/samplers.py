import bisect
import copy
from collections import defaultdict

import numpy as np
from torch.utils.data.sampler import BatchSampler, Sampler


class GroupedBatchSampler(BatchSampler):
    """Yield mini-batches whose images all come from the same aspect-ratio group.
    Wraps another sampler (e.g. a DistributedSampler)."""

    def __init__(self, sampler, group_ids, batch_size):
        if not isinstance(sampler, Sampler):
            raise ValueError(f"sampler should be an instance of torch.utils.data.Sampler, but got sampler={sampler}")
        self.sampler = sampler
        self.group_ids = group_ids
        self.batch_size = batch_size

    def __iter__(self):
        buffer_per_group = defaultdict(list)
        num_batches = 0
        for idx in self.sampler:
            group_id = self.group_ids[idx]
            buffer_per_group[group_id].append(idx)
            if len(buffer_per_group[group_id]) == self.batch_size:
                yield buffer_per_group[group_id]
                num_batches += 1
                del buffer_per_group[group_id]
        # fill the last batches with leftovers from any group
        leftovers = [i for g in sorted(buffer_per_group) for i in buffer_per_group[g]]
        expected = len(self)
        while num_batches < expected and leftovers:
            yield leftovers[: self.batch_size]
            leftovers = leftovers[self.batch_size:]
            num_batches += 1

    def __len__(self):
        return len(self.sampler) // self.batch_size


def _quantize(x, bins):
    bins = sorted(copy.deepcopy(bins))
    return [bisect.bisect_right(bins, y) for y in x]


def create_aspect_ratio_groups(dataset, k=0):
    aspect_ratios = [w / h for (w, h) in dataset.image_sizes()]
    bins = (2 ** np.linspace(-1, 1, 2 * k + 1)).tolist() if k > 0 else [1.0]
    groups = _quantize(aspect_ratios, bins)
    counts = np.unique(groups, return_counts=True)[1]
    print(f"Using {bins} as bins for aspect ratio quantization; count of images per bin: {counts}")
    return groups
