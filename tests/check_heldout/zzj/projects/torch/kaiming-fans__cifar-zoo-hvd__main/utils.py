'''Some helper functions: progress bar, meters, checkpointing.'''
import os
import shutil
import sys
import time

import torch

TOTAL_BAR_LENGTH = 40.
last_time = time.time()


def progress_bar(current, total, msg=None):
    global last_time
    cur_len = int(TOTAL_BAR_LENGTH * current / total)
    bar = '=' * cur_len + '>' + '.' * (int(TOTAL_BAR_LENGTH) - cur_len - 1)
    now = time.time()
    step_time, last_time = now - last_time, now
    line = ' [%s] %d/%d | Step: %.3fs' % (bar, current + 1, total, step_time)
    if msg:
        line += ' | ' + msg
    sys.stdout.write('\r' + line)
    if current >= total - 1:
        sys.stdout.write('\n')
    sys.stdout.flush()


class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val, self.avg, self.sum, self.count = 0, 0, 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def save_checkpoint(state, is_best, checkpoint='checkpoint', filename='checkpoint.pth.tar', rank=0):
    # only the master process writes to disk
    if rank != 0:
        return
    os.makedirs(checkpoint, exist_ok=True)
    filepath = os.path.join(checkpoint, filename)
    torch.save(state, filepath)
    if is_best:
        shutil.copyfile(filepath, os.path.join(checkpoint, 'model_best.pth.tar'))
