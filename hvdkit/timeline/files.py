"""Writing an output file so that a failure leaves the previous file (or nothing) in its place."""
import contextlib
import os
import tempfile


@contextlib.contextmanager
def replacing(out):
    """Yield a temporary path beside `out`; it becomes `out` only if the block succeeds."""
    out = os.path.abspath(out)
    fd, tmp = tempfile.mkstemp(prefix=".hvdkit-", suffix=os.path.splitext(out)[1], dir=os.path.dirname(out))
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; an output file gets the usual permissions
    try:
        yield tmp
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
