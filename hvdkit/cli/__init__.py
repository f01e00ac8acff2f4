"""The `hvdkit` command: doctor, scale, timeline, data, check."""
import argparse
import importlib
import os
import sys

import hvdkit
from hvdkit.common.errors import HvdkitError, UsageError, one_line

__all__ = ["main", "UsageError"]
# Subcommand modules register their own arguments; heavy imports stay inside their run functions.
COMMANDS = ("doctor", "scale", "timeline", "data", "check")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="hvdkit", description="Data-parallel training on Horovod, done right.")
    parser.add_argument("--version", action="version", version=f"hvdkit {hvdkit.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"hvdkit.cli.{name}").register(sub)
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except HvdkitError as exc:  # every error meant for the user: one line, its exit status
        print(f"hvdkit {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `hvdkit ... | head`: the reader left; say nothing more (flushing stdout again would raise).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
