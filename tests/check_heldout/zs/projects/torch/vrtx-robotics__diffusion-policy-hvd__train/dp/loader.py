import numpy as np
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from .dataset import SequenceDataset


def load_replay(path, fake=False):
    if fake:
        rng = np.random.default_rng(0)
        ends = np.cumsum(rng.integers(60, 100, size=40))
        return rng.normal(size=(ends[-1], 5)), rng.normal(size=(ends[-1], 2)), ends
    z = np.load(path)
    return z["obs"], z["action"], z["episode_ends"]


def build_loader(dataset, batch_size, train=True, workers=4):
    # one shard per GPU
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=train, drop_last=train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      pin_memory=True, persistent_workers=workers > 0), sampler


def build_datasets(path, obs_horizon, pred_horizon, fake=False, val_episodes=4):
    obs, act, ends = load_replay(path, fake)
    cut = ends[-val_episodes - 1]
    train = SequenceDataset(obs[:cut], act[:cut], ends[:-val_episodes], obs_horizon, pred_horizon)
    val = SequenceDataset(obs[cut:], act[cut:], ends[-val_episodes:] - cut, obs_horizon, pred_horizon,
                         norms=(train.obs_n, train.act_n))
    return train, val
