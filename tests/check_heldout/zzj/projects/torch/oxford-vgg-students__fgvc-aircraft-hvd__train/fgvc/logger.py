import json
import os
import time

from .dist import is_main


class RankZeroWriter:
    """Tiny stand-in for tensorboardX.SummaryWriter: appends scalars to a jsonl file on rank 0."""

    def __init__(self, log_dir):
        self.enabled = is_main()
        self.path = os.path.join(log_dir, 'scalars.jsonl')
        if self.enabled:
            os.makedirs(log_dir, exist_ok=True)

    def add_scalar(self, tag, value, step):
        if not self.enabled:
            return
        with open(self.path, 'a') as f:
            f.write(json.dumps({'tag': tag, 'value': float(value), 'step': step, 't': time.time()}) + '\n')
        print('[{}] {} = {:.4f}'.format(step, tag, value), flush=True)
