import os
import time
import datetime
from collections import defaultdict, deque

import torch
import horovod.torch as hvd


class SmoothedValue:
    def __init__(self, window_size=20, fmt="{median:.4f} ({global_avg:.4f})"):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0
        self.fmt = fmt

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def median(self):
        return sorted(self.deque)[len(self.deque) // 2]

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)

    def __str__(self):
        return self.fmt.format(median=self.median, global_avg=self.global_avg, value=self.deque[-1])


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            self.meters[k].update(float(v))

    def log_every(self, iterable, print_freq, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0 and is_main_process():
                line = self.delimiter.join(f"{k}: {m}" for k, m in self.meters.items())
                print(f"{header} [{i}/{len(iterable)}] {line}", flush=True)
        if is_main_process():
            print(f"{header} done in {datetime.timedelta(seconds=int(time.time() - start))}")


def collate_fn(batch):
    return tuple(zip(*batch))


def is_main_process():
    return hvd.rank() == 0


def save_on_master(obj, path):
    if is_main_process():
        torch.save(obj, path)


def reduce_dict(input_dict):
    keys = sorted(input_dict)
    vals = hvd.allreduce(torch.stack([input_dict[k].detach().cpu() for k in keys]), name="loss_dict")
    return dict(zip(keys, vals))


def init_distributed_mode(args):
    hvd.init()
    args.rank = hvd.rank()
    args.world_size = hvd.size()
    args.gpu = hvd.local_rank()
    args.distributed = args.world_size > 1
    print(f"| distributed init (rank {args.rank}): horovod, {args.world_size} processes", flush=True)
