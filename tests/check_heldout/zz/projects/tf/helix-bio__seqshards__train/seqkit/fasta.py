import gzip


def read_fasta(path):
    """Yield (header, sequence) pairs; headers look like `>id|label=3`."""
    opener = gzip.open if path.endswith(".gz") else open
    header, chunks = None, []
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith(">"):
                if header is not None:
                    yield header, "".join(chunks)
                header, chunks = line[1:], []
            else:
                chunks.append(line.upper())
    if header is not None:
        yield header, "".join(chunks)


def label_of(header):
    for field in header.split("|")[1:]:
        key, _, value = field.partition("=")
        if key == "label":
            return int(value)
    raise ValueError(f"no label in header {header!r}")
