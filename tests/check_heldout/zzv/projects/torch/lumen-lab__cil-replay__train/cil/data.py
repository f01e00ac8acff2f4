import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def load_npz(path):
    """Arrays saved by scripts/prepare_data.py: x_* uint8 NCHW, y_* int64."""
    blob = np.load(path)
    return (blob["x_train"], blob["y_train"]), (blob["x_test"], blob["y_test"])


def make_task_splits(labels, n_tasks, seed=1993):
    """Shuffle the class ids once (same seed on every worker) and cut them into tasks."""
    classes = np.unique(labels)
    rng = np.random.RandomState(seed)
    rng.shuffle(classes)
    return [list(map(int, c)) for c in np.array_split(classes, n_tasks)]


def _to_tensors(x, y, class_map):
    x = torch.from_numpy(x.astype(np.float32) / 255.0)
    y = torch.as_tensor([class_map[int(c)] for c in y], dtype=torch.long)
    return x, y


def task_loader(split, classes, buffer, class_map, batch_size, rank, world, seed=0):
    x, y = split
    mask = np.isin(y, classes)
    xs, ys = x[mask], y[mask]
    if buffer is not None and len(buffer):
        bx, by = buffer.arrays()
        xs, ys = np.concatenate([xs, bx]), np.concatenate([ys, by])
    ds = TensorDataset(*_to_tensors(xs, ys, class_map))
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=seed)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=False)


def eval_loader(split, classes, class_map, batch_size, rank, world):
    """Strided slice of the test set of `classes`: every sample on exactly one worker."""
    x, y = split
    mask = np.isin(y, classes)
    xs, ys = x[mask][rank::world], y[mask][rank::world]
    ds = TensorDataset(*_to_tensors(xs, ys, class_map))
    return DataLoader(ds, batch_size=batch_size, shuffle=False)
