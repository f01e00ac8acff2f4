import json
import logging
import logging.config
from pathlib import Path
from itertools import repeat
from collections import OrderedDict

import torch
import horovod.torch as hvd


def ensure_dir(dirname):
    dirname = Path(dirname)
    if not dirname.is_dir():
        dirname.mkdir(parents=True, exist_ok=False)


def read_json(fname):
    fname = Path(fname)
    with fname.open('rt') as handle:
        return json.load(handle, object_hook=OrderedDict)


def write_json(content, fname):
    fname = Path(fname)
    with fname.open('wt') as handle:
        json.dump(content, handle, indent=4, sort_keys=False)


def inf_loop(data_loader):
    ''' wrapper function for endless data loader. '''
    for loader in repeat(data_loader):
        yield from loader


def prepare_device(n_gpu_use):
    """
    one process per GPU under horovod: pin this process to its local GPU
    """
    if n_gpu_use > 0 and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device('cuda', hvd.local_rank())
    return torch.device('cpu')


def setup_logging(save_dir, default_level=logging.INFO):
    logging.basicConfig(level=default_level,
                        format='%(asctime)s - %(name)s - %(levelname)s - %(message)s')


class MetricTracker:
    def __init__(self, *keys, writer=None):
        self.writer = writer
        self.keys = list(keys)
        self.reset()

    def reset(self):
        self._total = {k: 0.0 for k in self.keys}
        self._counts = {k: 0 for k in self.keys}

    def update(self, key, value, n=1):
        if self.writer is not None:
            self.writer.add_scalar(key, value)
        self._total[key] += value * n
        self._counts[key] += n

    def avg(self, key):
        return self._total[key] / max(self._counts[key], 1)

    def result(self):
        return {k: self.avg(k) for k in self.keys}

    def synced_result(self):
        """totals and counts summed over all workers, then divided"""
        totals = torch.tensor([self._total[k] for k in self.keys], dtype=torch.float64)
        counts = torch.tensor([self._counts[k] for k in self.keys], dtype=torch.float64)
        totals = hvd.allreduce(totals, op=hvd.Sum, name='mt_totals')
        counts = hvd.allreduce(counts, op=hvd.Sum, name='mt_counts')
        avg = (totals / counts.clamp(min=1)).tolist()
        return dict(zip(self.keys, avg))


class TensorboardWriter():
    def __init__(self, log_dir, logger, enabled):
        self.writer = None
        self.selected_module = ""

        if enabled:
            log_dir = str(log_dir)
            try:
                from torch.utils.tensorboard import SummaryWriter
                self.writer = SummaryWriter(log_dir)
            except ImportError:
                logger.warning("Warning: tensorboard not found, writer disabled.")
                enabled = False

        self.step = 0
        self.mode = ''

    def set_step(self, step, mode='train'):
        self.mode = mode
        self.step = step

    def add_scalar(self, tag, value):
        if self.writer is not None:
            self.writer.add_scalar('{}/{}'.format(tag, self.mode), value, self.step)
