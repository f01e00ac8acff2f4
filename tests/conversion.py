"""How the tests read a conversion: a Horovod twin against its sequential script, as a student's `diff` shows it.

The module docstrings differ (they give the launch command) and are left out. difflib's opcodes over the
remaining lines give the changed blocks; a block's lines on the Horovod side are the lines the conversion
adds (issue 41 counts them this way: 75, 69, 17 and 18 lines before it, for ResNet34 in TensorFlow and
PyTorch and the homework in TensorFlow and PyTorch).
"""
import ast
import difflib
import re

IMPORT = re.compile(r"^(import \w|from \S+ import )")


def code(path):
    """The file's lines after its module docstring."""
    with open(path) as f:
        text = f.read()
    return text.splitlines()[ast.parse(text).body[0].end_lineno:]


def changes(sequential, converted):
    """(old lines, new lines) of each block that differs, in order."""
    old, new = code(sequential), code(converted)
    return [(old[i1:i2], new[j1:j2])
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
            if tag != "equal"]


def added(sequential, converted):
    """The number of code lines the conversion adds."""
    return sum(len(new) for _, new in changes(sequential, converted))


def problems(sequential, converted):
    """Each block that breaks the rule, as diff text: every added line carries `Horovod:`, and the only line
    dropped without a replacement is an import the converted script no longer needs."""
    bad = []
    for old, new in changes(sequential, converted):
        dropped_import = not new and all(IMPORT.match(line) for line in old)
        if not dropped_import and (not new or any("Horovod:" not in line for line in new)):
            bad.append("\n".join(["- " + line for line in old] + ["+ " + line for line in new]))
    return bad
