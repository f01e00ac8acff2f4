import csv
import os


class Logbook:
    """Appends one CSV row per epoch; header written on first use."""

    def __init__(self, path):
        new = not os.path.exists(path)
        self._fh = open(path, "a", newline="")
        self._writer = None
        self._new = new

    def write(self, **row):
        if self._writer is None:
            self._writer = csv.DictWriter(self._fh, fieldnames=list(row))
            if self._new:
                self._writer.writeheader()
        self._writer.writerow({k: (round(v, 5) if isinstance(v, float) else v) for k, v in row.items()})
        self._fh.flush()

    def close(self):
        self._fh.close()
