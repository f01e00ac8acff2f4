"""The command line of `python -m hvdkit.<framework>.convert_checkpoint FILE...` (framework-free half)."""
import argparse
import sys

from hvdkit.common.checkpoint import CheckpointError, convert_file


def main(framework, trusted_decode, encode, argv=None):
    ap = argparse.ArgumentParser(
        prog=f"python -m hvdkit.{framework}.convert_checkpoint",
        description="Rewrite hvdkit checkpoints you trust (e.g. from an older hvdkit) in the format restore reads "
                    "without running code. Unpickling runs whatever the file says: convert only your own files. "
                    "Each original is kept beside it as FILE.unsafe.")
    ap.add_argument("files", nargs="+", metavar="FILE", help="checkpoint files, e.g. ckpt/epoch-0003.ckpt")
    args = ap.parse_args(argv)
    for path in args.files:
        try:
            convert_file(path, trusted_decode, encode)
        except (CheckpointError, OSError, TypeError) as exc:
            print(f"{ap.prog}: error: {exc}", file=sys.stderr)
            return 2
        print(f"converted {path} (original kept as {path}.unsafe)")
    return 0
