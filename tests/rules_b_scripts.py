"""What the rules-b tests (tests/test_check_rules_b_*.py) share: the static pass's finding on one step of a
script written into a temporary folder."""
import textwrap

from hvdkit.check.static import analyze


def finding(tmp_path, src, step, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, _, _ = analyze(str(path))
    return findings[step]
