"""DeepLoc-style FASTA parsing, k-fold split and per-worker sharding."""
import numpy as np

LOCATIONS = ["Cytoplasm", "Nucleus", "Extracellular", "Cell.membrane", "Mitochondrion",
             "Plastid", "Endoplasmic.reticulum", "Lysosome/Vacuole", "Golgi.apparatus", "Peroxisome"]


def read_fasta(path):
    """Headers look like `>Q9XYZ1 Nucleus-S`; returns (id, seq, label_idx) tuples."""
    records, name, label, chunks = [], None, None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(chunks), label))
                head = line[1:].split()
                name, label, chunks = head[0], LOCATIONS.index(head[1].rsplit("-", 1)[0]), []
            elif line:
                chunks.append(line)
    if name is not None:
        records.append((name, "".join(chunks), label))
    return records


def split_folds(records, n_folds=5, fold=0, seed=None):
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(records))
    parts = np.array_split(perm, n_folds)
    val = [records[i] for i in parts[fold]]
    train = [records[i] for k, p in enumerate(parts) if k != fold for i in p]
    return train, val


def shard(records, rank, world):
    """Every world-th record from `rank`, trimmed so that all workers get the same count."""
    n = len(records) // world
    return records[rank::world][:n]


def batches(records, batch_size, alphabet, shuffle=False, seed=0):
    order = np.arange(len(records))
    if shuffle:
        np.random.default_rng(seed).shuffle(order)
    for s in range(0, len(order) - batch_size + 1, batch_size):
        chunk = [records[i] for i in order[s:s + batch_size]]
        yield alphabet.batch([r[1] for r in chunk]), [r[2] for r in chunk]
