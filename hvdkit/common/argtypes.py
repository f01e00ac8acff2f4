"""Command-line helpers for hvdkit's scripts: number types whose error says what to type, and a parser
whose error is one line.

argparse's own error prints the usage block and then the error: under `mpirun -n 8` that is eight usage
blocks burying the one line that matters. Parser prints `prog: error: ...` once (rank 0) and every rank
exits with status 2.
"""
import argparse
import sys

from hvdkit.common.ranks import rank_and_size

USAGE_STATUS = 2


def whole_number(minimum):
    """An argparse type for integers >= minimum; also accepts whole numbers written like 1e8."""
    def parse(text):
        try:
            value = float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value != int(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {text}")
        return int(value)
    parse.__name__ = f"integer >= {minimum}"  # argparse names the type in its own messages
    return parse


positive_int = whole_number(1)  # counts: batch sizes, epochs, steps
non_negative_int = whole_number(0)  # counts that may be zero: untimed steps, a seed


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose error is one line (from rank 0 when launched) and exit status 2."""

    def error(self, message):
        if rank_and_size()[0] == 0:
            print(f"{self.prog}: error: {message}", file=sys.stderr, flush=True)
        sys.exit(USAGE_STATUS)
