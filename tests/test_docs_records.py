"""Every measured figure in README.md, homework/README.md and docs/*.md names the record it comes from,
and says what the record says.

The convention (also at the top of docs/performance.md): a figure is a Markdown link whose text is the
figure and whose target is the record plus the key inside it,

    [0.86](benchmarks/results/pi.json#per_core.65536.fraction)        (README.md, homework/README.md)
    [3.6 s](../benchmarks/results/timeline.json#rows.0.seconds)      (docs/*.md: paths relative to the page)

The key is dot-separated (list items by index; spaces and parentheses in a key are written %20, %28, %29)
and may end in `*F` or
`/F` to scale the value (`/1e6` for millions, `*100` for a percentage). The link text starts with the
number; a unit may follow. The
record's value rounded to the digits shown must be the number shown. docs/BENCHMARKS.md is generated
from the records (a list of them, no figures) and is not checked here.

Figures without a record: `unlinked()` finds numbers followed by a unit of time, rate or ratio (ms, s,
x, %, samples/s, ...) outside code and outside record links, and in table rows also plain decimals like an
accuracy (0. and three or more digits, e.g. 0.8268), which have no unit to find them by. In the documents
listed in CONVERTED there
must be none: a setting or a bound written in prose goes in backticks (`HOROVOD_CYCLE_TIME=0.1`) or is
phrased without a unit figure. Documents not in CONVERTED are not yet held to that (their record links,
where they have them, are checked all the same).
"""
import glob
import json
import math
import os
import re
from urllib.parse import unquote

import pytest

from conftest import ROOT

LINK = re.compile(r"\[([^\]]+)\]\(([^)\s#]+\.json)#([^)\s]+)\)")
NUMBER = re.compile(r"\s*([-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)")
UNIT = r"(?:ms|us|µs|s|x|%|M samples/s|samples/s|img/s|images/s|GB/s|MB/s|minutes|seconds|hours)"
FIGURE = re.compile(r"(?:(?<![\w.\-/=^])|(?<=\d-))\d+(?:\.\d+)?(?:e-?\d+)?\s?" + UNIT + r"(?![\w/])")
TABLE_DECIMAL = re.compile(r"(?<![\w.\-/])0\.\d{3,}(?![\w.])")  # an accuracy or a fraction in a table cell
# Documents whose every unit figure must be a record link; the others are not checked for that yet.
CONVERTED = ["README.md", "homework/README.md", "docs/reliability.md", "docs/eight-steps.md", "docs/scale.md",
             "docs/performance.md",
             "docs/timeline.md", "docs/elastic.md", "docs/two-hosts.md", "docs/horovod-patch.md", "docs/install.md",
             "docs/check.md"]


def documents():
    return ["README.md", "homework/README.md"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
        if not p.endswith("BENCHMARKS.md"))


def lookup(record, key):
    """The value at a dotted key, with an optional trailing *F or /F."""
    m = re.fullmatch(r"(.+?)(?:([*/])([0-9.eE+-]+))?", unquote(key))
    path, op, factor = m.group(1), m.group(2), m.group(3)
    value = record
    for part in path.split("."):
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(f"no {part!r} in {path!r}")
    value = float(value)
    if op == "*":
        value *= float(factor)
    elif op == "/":
        value /= float(factor)
    return value


def shown_number(text):
    """(number, half of its last digit's unit) of a link text, or None when it does not start with one."""
    m = NUMBER.match(text)
    if not m:
        return None
    literal = m.group(1).replace(",", "")
    mantissa, _, exponent = literal.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    half = 0.5 * 10 ** (int(exponent or 0) - decimals)
    return float(literal), half


def problems(doc, text):
    """What is wrong with the record links of one document (path relative to ROOT)."""
    out, cache = [], {}
    for line_no, line in enumerate(text.splitlines(), 1):
        for label, target, key in LINK.findall(line):
            where = f"{doc}:{line_no} [{label}]({target}#{key})"
            path = os.path.normpath(os.path.join(ROOT, os.path.dirname(doc), target))
            if not os.path.exists(path):
                out.append(f"{where}: no record {os.path.relpath(path, ROOT)}")
                continue
            if path not in cache:
                with open(path) as f:
                    cache[path] = json.load(f)
            number = shown_number(label)
            if number is None:
                out.append(f"{where}: the link text must start with the figure")
                continue
            try:
                value = lookup(cache[path], key)
            except (KeyError, IndexError, ValueError, TypeError) as e:
                out.append(f"{where}: {e}")
                continue
            shown, half = number
            if not math.isfinite(value) or abs(value - shown) > half * (1 + 1e-9):
                out.append(f"{where}: the record says {value:.6g}")
    return out


def unlinked(text):
    """Unit figures, and in table rows plain decimals 0.ddd..., outside code blocks, code spans and record
    links: (line number, figure)."""
    text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    found = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if line.startswith("    "):  # an indented code block
            continue
        line = LINK.sub("", re.sub(r"`[^`]*`", "", line))
        found += [(line_no, m.group(0)) for m in FIGURE.finditer(line)]
        if line.lstrip().startswith("|"):
            found += [(line_no, m.group(0)) for m in TABLE_DECIMAL.finditer(line)]
    return found


def read(doc):
    with open(os.path.join(ROOT, doc)) as f:
        return f.read()


@pytest.mark.parametrize("doc", documents())
def test_figures_match_their_records(doc):
    found = problems(doc, read(doc))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("doc", CONVERTED)
def test_no_figure_without_a_record(doc):
    found = unlinked(read(doc))
    assert not found, f"{doc}: figures without a record link (line, figure; see this test's docstring): {found}"


def test_an_edited_number_is_caught():
    """The check itself: docs/performance.md's first record figure, changed by one unit of its last digit, is
    reported."""
    doc = "docs/performance.md"
    text = read(doc)
    m = LINK.search(text)
    assert m, f"{doc} has no record link"
    label = m.group(1)
    literal = NUMBER.match(label).group(1)
    digits = [i for i, c in enumerate(literal) if c.isdigit()]
    last = digits[-1]
    bumped = literal[:last] + str((int(literal[last]) + 1) % 10) + literal[last + 1:]
    edited = text[:m.start(1)] + label.replace(literal, bumped, 1) + text[m.end(1):]
    assert not problems(doc, text)
    assert problems(doc, edited)


def test_a_plain_accuracy_in_a_table_is_caught():
    """A decimal without a unit counts as a figure in a table row, not in prose, code or a link."""
    text = ("| seed 0 | 0.8302 | [0.8258](r.json#a) | `0.8241` |\n"
            "prose 0.8268 and a bound 0.002\n"
            "    | 0.5000 | in an indented code block\n")
    assert unlinked(text) == [(1, "0.8302")]
