import logging
import sys

import horovod.tensorflow as hvd

_fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S")
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(_fmt)

log = logging.getLogger("dgcnn")
log.addHandler(_handler)
# only the chief worker talks; the others only report problems
log.setLevel(logging.INFO if hvd.rank() == 0 else logging.WARNING)
log.propagate = False
