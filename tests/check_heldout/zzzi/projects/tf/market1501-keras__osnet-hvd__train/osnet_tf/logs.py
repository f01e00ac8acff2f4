import csv
import os
import time

import keras


class CSVEpochLogger(keras.callbacks.Callback):
    def __init__(self, path):
        super().__init__()
        self.path = path
        self.t0 = None

    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {}, epoch=epoch, seconds=round(time.time() - self.t0, 1))
        new = not os.path.exists(self.path)
        with open(self.path, 'a', newline='') as fh:
            w = csv.DictWriter(fh, fieldnames=sorted(logs))
            if new:
                w.writeheader()
            w.writerow(logs)
