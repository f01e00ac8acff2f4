"""hvdkit.common.argtypes: number types with one-line reasons, and the one-line parser."""
import argparse
import subprocess
import sys

import pytest

from hvdkit.common.argtypes import non_negative_int, positive_int


@pytest.mark.parametrize("text,value", [("1", 1), ("256", 256), ("1e8", 100_000_000), ("2.0", 2)])
def test_positive_int_reads_whole_numbers(text, value):
    assert positive_int(text) == value


@pytest.mark.parametrize("text,reason", [("0", "must be at least 1, got 0"),
                                         ("-3", "must be at least 1, got -3"),
                                         ("1.5", "'1.5' is not a whole number"),
                                         ("ten", "'ten' is not a whole number")])
def test_positive_int_says_why_not(text, reason):
    with pytest.raises(argparse.ArgumentTypeError, match=f"^{reason}$"):
        positive_int(text)


def test_non_negative_int_takes_zero():
    assert non_negative_int("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="must be at least 0, got -1"):
        non_negative_int("-1")


@pytest.mark.parametrize("rank,lines", [("0", 1), ("1", 0)])
def test_parser_error_is_one_line_from_rank_0(rank, lines):
    code = ("from hvdkit.common.argtypes import Parser, positive_int\n"
            "p = Parser(prog='train.py'); p.add_argument('--epochs', type=positive_int)\n"
            "p.parse_args(['--epochs', '0'])")
    env = {"OMPI_COMM_WORLD_RANK": rank, "OMPI_COMM_WORLD_SIZE": "2", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == ["train.py: error: argument --epochs: must be at least 1, got 0"][:lines]
