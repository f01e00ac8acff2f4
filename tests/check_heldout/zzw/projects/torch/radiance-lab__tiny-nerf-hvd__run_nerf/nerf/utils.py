import math
import os
import time


def mse2psnr(mse):
    return -10.0 * math.log10(max(mse, 1e-10))


class Timer:
    def __init__(self):
        self.t = time.time()

    def lap(self):
        now = time.time()
        dt, self.t = now - self.t, now
        return dt


def ensure_dir(path):
    os.makedirs(path, exist_ok=True)
    return path
