import h5py
import numpy as np


class FieldArchive:
    """/fields (T, ny, nx, V) float32 in one HDF5 file, 6-hourly."""

    def __init__(self, path, steps_per_year, first_year=1979):
        self.f = h5py.File(path, "r")
        self.x = self.f["fields"]
        self.spy = steps_per_year
        self.y0 = first_year

    def year_range(self, y0, y1):
        return (y0 - self.y0) * self.spy, min((y1 + 1 - self.y0) * self.spy, self.x.shape[0])

    def norm_stats(self, t0, t1, every=40):
        sub = self.x[t0:t1:every]
        return sub.mean(axis=(0, 1, 2)), sub.std(axis=(0, 1, 2)) + 1e-6

    def window(self, t, n):
        return self.x[t:t + n]
