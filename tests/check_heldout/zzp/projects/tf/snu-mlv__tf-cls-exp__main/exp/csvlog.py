import csv
import os


class CsvLog:
    def __init__(self, folder, enabled=True):
        self.enabled = enabled
        if enabled:
            os.makedirs(folder, exist_ok=True)
            self.f = open(os.path.join(folder, "log.csv"), "w", newline="")
            self.w = None

    def write(self, **row):
        if not self.enabled:
            return
        if self.w is None:
            self.w = csv.DictWriter(self.f, fieldnames=list(row))
            self.w.writeheader()
        self.w.writerow(row)
        self.f.flush()
