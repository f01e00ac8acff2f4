import datetime
import errno
import os
import time
from collections import defaultdict, deque

import torch
import horovod.torch as hvd


class SmoothedValue:
    """Track a series of values and provide access to smoothed values over a
    window or the global series average."""

    def __init__(self, window_size=20, fmt=None):
        if fmt is None:
            fmt = "{median:.4f} ({global_avg:.4f})"
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
        return torch.tensor(list(self.deque)).median().item()

    @property
    def avg(self):
        return torch.tensor(list(self.deque), dtype=torch.float32).mean().item()

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)

    @property
    def value(self):
        return self.deque[-1]

    def __str__(self):
        return self.fmt.format(median=self.median, avg=self.avg, global_avg=self.global_avg, value=self.value)


class MetricLogger:
    def __init__(self, delimiter="\t"):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k].update(v)

    def add_meter(self, name, meter):
        self.meters[name] = meter

    def __str__(self):
        return self.delimiter.join(f"{name}: {meter}" for name, meter in self.meters.items())

    def log_every(self, iterable, print_freq, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0 or i == len(iterable) - 1:
                eta = datetime.timedelta(seconds=int((time.time() - start) / (i + 1) * (len(iterable) - i - 1)))
                print(self.delimiter.join([header, f"[{i}/{len(iterable)}]", f"eta: {eta}", str(self)]))
        print(f"{header} Total time: {datetime.timedelta(seconds=int(time.time() - start))}")


def collate_fn(batch):
    return tuple(zip(*batch))


def mkdir(path):
    try:
        os.makedirs(path)
    except OSError as e:
        if e.errno != errno.EEXIST:
            raise


def setup_for_distributed(is_master):
    """Disable printing when not in master process."""
    import builtins as __builtin__

    builtin_print = __builtin__.print

    def print(*args, **kwargs):
        force = kwargs.pop("force", False)
        if is_master or force:
            builtin_print(*args, **kwargs)

    __builtin__.print = print


def get_world_size():
    return hvd.size()


def get_rank():
    return hvd.rank()


def is_main_process():
    return get_rank() == 0


def save_on_master(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)


def reduce_dict(input_dict, average=True):
    """Average (or sum) the values of a dict over all workers, for logging."""
    world_size = get_world_size()
    if world_size < 2:
        return input_dict
    with torch.inference_mode():
        names = sorted(input_dict.keys())
        values = torch.stack([input_dict[k].detach().float().cpu() for k in names])
        values = hvd.allreduce(values, op=hvd.Average if average else hvd.Sum, name="reduce_dict")
        return {k: v for k, v in zip(names, values)}


def init_distributed_mode(args):
    hvd.init()
    args.rank = hvd.rank()
    args.world_size = hvd.size()
    args.gpu = hvd.local_rank()
    args.distributed = args.world_size > 1
    if torch.cuda.is_available():
        torch.cuda.set_device(args.gpu)
    print(f"| horovod init (rank {args.rank}/{args.world_size}, local {args.gpu})", flush=True)
    setup_for_distributed(args.rank == 0)
