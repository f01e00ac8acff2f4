"""Reading Horovod timeline files record by record, in bounded memory, tolerating cut-off files.

Horovod 0.28 writes a JSON array whose records follow each other as ``{...},{...}`` and re-closes it with
``]`` after every record, so a file from a killed job is usually valid, but can end mid-record. Older
Horovod wrote ``{...},`` and a newline per record and never closed the array. Both read the same here:
records are decoded a chunk at a time (one ``json.loads`` per chunk when the chunk splits cleanly, one
record at a time otherwise), and an incomplete last record is dropped and reported, not fatal.
"""
import contextlib
import json
import os

from hvdkit.common.errors import HvdkitError, one_line

CHUNK_CHARS = 1 << 20
# No Horovod record comes near this; a longer undecodable stretch means the file is not a timeline.
MAX_RECORD_CHARS = 1 << 20
# Keys and phases Horovod writes; anything else means the trace came from another tool.
HOROVOD_KEYS = frozenset(("name", "ph", "pid", "ts", "dur", "args", "s"))
HOROVOD_PHASES = frozenset("BEXiM")
CHECK_FIRST = 1000


class TraceError(HvdkitError, ValueError):
    """The file is not a readable Horovod timeline; the message is one line naming the fix."""


@contextlib.contextmanager
def horovod_records(trace, keep=()):
    """Turn a record that lacks a field Horovod always writes, or has one of the wrong type, into a TraceError.

    Checked here, once around a whole pass, not per record in the hot loops of summary, slice and plot
    (such records were found by atheris). Exceptions of the classes in `keep` pass through unchanged.
    """
    try:
        yield
    except (TraceError, *keep):
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise TraceError(f"{trace.path}: a record near record {trace.records} is not as Horovod writes it "
                         f"({type(exc).__name__}: {one_line(exc)}): the file is corrupt or not a "
                         "Horovod timeline") from None


_decoder = json.JSONDecoder()
_WS_SEP = " \t\r\n,"


class Trace:
    """Iterate the records (dicts) of one timeline file; after iteration the attributes describe the file.

    ``records``: records decoded; ``closed``: the array ended with ``]``; ``dropped_chars``: length of an
    incomplete last record that was ignored (a cut-off file).
    """

    def __init__(self, path, chunk_chars=CHUNK_CHARS):
        self.path = str(path)
        self.chunk_chars = chunk_chars
        if not os.path.exists(self.path):
            raise TraceError(f"{self.path}: no such file: give the path of a HOROVOD_TIMELINE file")
        if os.path.isdir(self.path):
            raise TraceError(f"{self.path} is a directory: give the path of a HOROVOD_TIMELINE file")
        self.size = os.path.getsize(self.path)
        if self.size == 0:
            raise TraceError(f"{self.path} is empty: the job wrote no timeline (was HOROVOD_TIMELINE exported to "
                             "rank 0, e.g. mpirun -x HOROVOD_TIMELINE?)")
        self.records = 0
        self.closed = False
        self.dropped_chars = 0

    def __iter__(self):
        for batch in self.batches():
            yield from batch

    def batches(self):
        """The records in lists of up to a chunk's worth (cheaper to loop over than one record at a time)."""
        self.records, self.closed, self.dropped_chars = 0, False, 0
        with open(self.path, "r", encoding="utf-8", errors="replace") as f:
            buf = self._skip_opening(f)
            eof = False
            while not eof:
                chunk = f.read(self.chunk_chars)
                eof = not chunk
                buf += chunk
                if not self.closed:
                    records, buf = self._decode(buf)
                    if records:
                        yield records
                if self.closed:
                    buf = buf.strip()
                    if buf:
                        raise TraceError(f"{self.path}: data after the closing ']' of the trace: not a single "
                                         "Horovod timeline (concatenated files?)")
                    continue
                if not eof and len(buf) > MAX_RECORD_CHARS:
                    self._fail_undecodable()
            if buf.strip(_WS_SEP):
                if self.records == 0:
                    self._fail_undecodable()
                self.dropped_chars = len(buf.strip(_WS_SEP))
        if self.records == 0:
            raise TraceError(f"{self.path} holds no trace records: the job stopped before Horovod wrote any event")

    def _skip_opening(self, f):
        head = f.read(self.chunk_chars)
        stripped = head.lstrip("\ufeff \t\r\n")
        if not stripped:
            raise TraceError(f"{self.path} holds only whitespace: the job wrote no timeline")
        if stripped[0] == "{":
            raise TraceError(f"{self.path} is a JSON object, not a Horovod timeline (Horovod writes a JSON array of "
                             "events; traceEvents objects come from other profilers)")
        if stripped[0] != "[":
            raise TraceError(f"{self.path} is not JSON (it starts with {stripped[:12]!r}): give a HOROVOD_TIMELINE "
                             "file")
        return stripped[1:]

    def _decode(self, buf):
        """Decode the complete records at the front of buf; return (records, the undecoded rest)."""
        records = []
        cut = buf.rfind("},")
        if cut > 0:
            try:
                records = json.loads("[" + buf[:cut + 1].lstrip(_WS_SEP) + "]")
                buf = buf[cut + 2:]
            except ValueError:
                records = []  # an odd split (e.g. "}," inside a string): decode one record at a time below
        i, n = 0, len(buf)
        while True:
            while i < n and buf[i] in _WS_SEP:
                i += 1
            if i >= n:
                break
            if buf[i] == "]":
                self.closed = True
                i += 1
                break
            try:
                record, i = _decoder.raw_decode(buf, i)
            except ValueError:
                break  # an incomplete record: wait for the next chunk (or drop it at the end of the file)
            records.append(record)
        if records:
            self._check(records)
        return records, buf[i:]

    def _check(self, records):
        start = self.records
        self.records += len(records)
        if start >= CHECK_FIRST:
            return
        for r in records[:CHECK_FIRST - start]:
            if (not isinstance(r, dict) or not isinstance(r.get("ph"), str) or r["ph"] not in HOROVOD_PHASES
                    or not HOROVOD_KEYS.issuperset(r)):
                what = sorted(set(r) - HOROVOD_KEYS) if isinstance(r, dict) else type(r).__name__
                raise TraceError(f"{self.path} is a JSON trace but not a Horovod timeline (record {start + 1} has "
                                 f"{what or 'ph=' + repr(r.get('ph'))}): open it with the tool that wrote it")
            start += 1

    def _fail_undecodable(self):
        where = "before its first record" if self.records == 0 else f"after record {self.records}"
        raise TraceError(f"{self.path}: no complete trace record {where}: the file is cut off there, corrupt, "
                         "or not a Horovod timeline")
