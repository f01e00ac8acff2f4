import time


class Table:
    def __init__(self, path, header):
        self.path, self.header, self.rows, self.t0 = path, header, [], time.time()

    def add(self, *row):
        self.rows.append(row)

    def write(self):
        with open(self.path, "w") as f:
            f.write("\t".join(self.header) + "\n")
            for r in self.rows:
                f.write("\t".join(f"{c:.5g}" if isinstance(c, float) else str(c) for c in r) + "\n")
        return time.time() - self.t0
