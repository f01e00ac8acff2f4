import json
import os
import time

import numpy as np
import tensorflow as tf


class Timer:
    def __init__(self, warmup_steps=10):
        self.warmup = warmup_steps
        self.times = []
        self.seen = 0
        self._t = None

    def tick(self):
        self._t = time.perf_counter()

    def tock(self, batch, sync=None):
        if sync is not None:
            sync.numpy()          # wait for the step to finish
        self.seen += 1
        if self.seen > self.warmup:
            self.times.append((time.perf_counter() - self._t, batch))

    def rate(self):
        if not self.times:
            return 0.0
        t = sum(dt for dt, _ in self.times)
        n = sum(b for _, b in self.times)
        return n / t

    def report(self, ranks, batch, path):
        dts = np.array([dt for dt, _ in self.times]) if self.times else np.zeros(1)
        out = {"ranks": ranks, "batch_per_rank": batch, "img_s_rank0": self.rate(),
               "step_ms_p50": float(np.percentile(dts, 50) * 1e3),
               "step_ms_p95": float(np.percentile(dts, 95) * 1e3)}
        with open(path, "w") as fh:
            json.dump(out, fh, indent=2)
        print(json.dumps(out))


class CheckpointHook:
    def __init__(self, directory, model, optimizer, is_chief, keep=3):
        self.is_chief = is_chief
        if is_chief:
            self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
            self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def save(self, epoch):
        if self.is_chief:
            self.manager.save(checkpoint_number=epoch)
