"""How a rank ends on an error: one line for bad input (exit 2), and no hang when a rank fails.

Without this, a Python exception in one rank runs Horovod's atexit shutdown, which waits for the
other ranks; they fail in their next collective with HorovodInternalError tracebacks of their own, and
mpirun reports whichever rank exited first -- often not the one that failed (measured: 37 s and the
wrong rank named, docs/reliability.md). `install(rank, size)`, called by `init()`, replaces the
exception hook so that the failing rank says who it is and leaves at once with os._exit, without
Horovod's shutdown handshake; the launcher then sees that rank's non-zero exit first and ends the job.
Framework-free.
"""
import os
import sys
import time
import traceback

USAGE_STATUS = 2
FAILURE_STATUS = 1
# Horovod's own default (0) never ends a stalled job: a rank that skips a collective burns the allocation.
# Ten minutes is far above any legitimate gap between collectives and far below a batch job's limit.
STALL_SHUTDOWN_SECONDS = "600"
BYSTANDER_GRACE_SECONDS = 2


class HvdkitError(Exception):
    """Base of every error hvdkit reports to a user: one line saying what to fix, no traceback.

    The `hvdkit` command prints it as `hvdkit COMMAND: error: ...`, a rank under init()'s hook as
    `PROG: error: ...`; both exit with `status` (2: the input must change; 1: a run failed). A subclass
    with `collective = True` is raised by every rank with the same text, and rank 0 alone prints it.
    Subclasses that were ValueError or RuntimeError before keep that base too, for callers catching it.
    """
    status = USAGE_STATUS
    collective = False


class UsageError(HvdkitError):
    """Bad input: an argument, an option or a file the user gave."""


def one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def fail(message, status=USAGE_STATUS, prog=None):
    """Print `prog: error: message` on stderr and exit with `status` (2: the user must change something)."""
    prog = prog or os.path.basename(sys.argv[0] or "python")
    print(f"{prog}: error: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


def default_stall_shutdown():
    """Before hvd.init(): end a stalled job after STALL_SHUTDOWN_SECONDS unless the user chose a time (0: never).

    Horovod reads the variable in its background thread at init, in every process, so setting it in this
    process works under any launcher.
    """
    os.environ.setdefault("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", STALL_SHUTDOWN_SECONDS)


def install(rank, size):
    """Make an uncaught exception in this rank end the process at once, naming the rank.

    hvdkit's one-line errors (bad data, a checkpoint that does not fit, ranks that disagree) print one
    line and exit 2; anything else prints its traceback under "rank R of N failed" and exits 1.
    """
    previous = sys.excepthook

    def hook(kind, exc, tb):
        if issubclass(kind, KeyboardInterrupt):
            return previous(kind, exc, tb)
        prog = os.path.basename(sys.argv[0] or "python")
        if isinstance(exc, HvdkitError):
            # Collective errors are raised on every rank with the same text: rank 0 speaks for all.
            if rank == 0 or not exc.collective:
                print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
            status = exc.status
        elif kind.__name__ == "HorovodInternalError":
            # A bystander: its collective was cut off because another rank failed. No traceback wall.
            print(f"hvdkit: rank {rank} of {size} stopped: Horovod shut down because another rank failed or left "
                  "(its error is above, or in the launcher's report), a collective stalled past "
                  "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS (Horovod's 'Missing ranks' warning above names it), "
                  "or the network to another rank failed (Gloo's 'Timed out waiting' or 'Application timeout' "
                  "above: HOROVOD_GLOO_TIMEOUT_SECONDS)",
                  file=sys.stderr)
            status = FAILURE_STATUS
            # Leave after the failed rank: launchers name the first process to exit non-zero, and a
            # SIGKILLed rank's exit can reach horovodrun after a bystander's (seen at 4 ranks, Gloo).
            time.sleep(BYSTANDER_GRACE_SECONDS)
        else:
            print(f"hvdkit: rank {rank} of {size} failed ({prog}): {kind.__name__}: {one_line(exc)}",
                  file=sys.stderr)
            traceback.print_exception(kind, exc, tb, file=sys.stderr)
            status = FAILURE_STATUS
        _flush_and_exit(status)

    sys.excepthook = hook


def _flush_and_exit(status):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed pipe must not turn a clean exit into a hang
            pass
    os._exit(status)
