import numpy as np

BASES = "ACGT"


def read_fasta(path):
    """Yields (header, sequence); header ends with '|label=0' or '|label=1'."""
    header, chunks = None, []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                if header is not None:
                    yield header, "".join(chunks)
                header, chunks = line[1:], []
            elif line:
                chunks.append(line)
    if header is not None:
        yield header, "".join(chunks)


def one_hot_encode(seq, length):
    x = np.zeros((length, 4), dtype=np.float32)
    for i, base in enumerate(seq[:length].upper()):
        j = BASES.find(base)
        if j >= 0:
            x[i, j] = 1.0
    return x
