import json
import sys

import horovod.torch as hvd


def log_event(kind, **payload):
    """Structured log line picked up by the pipeline's metrics collector (rank 0 only)."""
    if hvd.rank() != 0:
        return
    sys.stdout.write(json.dumps({"kind": kind, **payload}) + "\n")
    sys.stdout.flush()
