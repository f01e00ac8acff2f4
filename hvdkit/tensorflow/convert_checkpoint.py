"""python -m hvdkit.tensorflow.convert_checkpoint FILE...: rewrite a trusted pickle checkpoint (older hvdkit)
as npz + JSON, the format restore reads without running code."""
import sys

from hvdkit.common.convert import main
from hvdkit.tensorflow._checkpoint import Checkpointer, load_trusted

if __name__ == "__main__":
    sys.exit(main("tensorflow", load_trusted, Checkpointer.encode))
