"""Names users pass for Horovod's enums, checked once with an error that lists the valid ones."""

OPS = {"average": "Average", "sum": "Sum", "adasum": "Adasum"}
COMPRESSION = {"none": "none", "fp16": "fp16"}


def choice(value, table, what):
    key = str(value).lower()
    if key not in table:
        raise ValueError(f"unknown {what} {value!r}: use one of {', '.join(table)}")
    return table[key]


def horovod_args(hvd, compression, op):
    """(Compression object, reduce op) for a horovod.torch or horovod.tensorflow module."""
    comp = getattr(hvd.Compression, choice(compression, COMPRESSION, "compression"))
    return comp, getattr(hvd, choice(op, OPS, "reduction op"))
