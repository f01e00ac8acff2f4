"""Launch the runs of `--against` and read what they left: the Horovod script on N ranks (record.py), then
the sequential script twice at once, one process each (replay.py: the union in rank order, and reversed),
in one scratch directory removed afterwards."""
import concurrent.futures
import os
import shutil
import sys
import tempfile
import time
from typing import NamedTuple, Optional

from hvdkit.check.against import compare, explain, store
from hvdkit.check.against.recorded import HorovodRun
from hvdkit.check.run import dynamic
from hvdkit.check.run.observer import RankRecord


class Replay(NamedTuple):
    out: Optional[dict]             # its replay.json (None: it left none)
    record: Optional[RankRecord]    # the --run observer's record: steps, crash
    seconds: float
    dir: str

    def done(self):
        return set(map(int, (self.out or {}).get("steps", {})))


def against(hvd_script, seq_script, script_args, ranks=2, steps=4, timeout=600, keep=False):
    """The report's `against` entry (docs/check.md, "Against a sequential script")."""
    out = tempfile.mkdtemp(prefix="hvdkit-against-")
    t0 = time.time()
    try:
        hvd_dir = os.path.join(out, "hvd")
        argv = [sys.executable, "-m", "hvdkit.check.against.record", hvd_script, *script_args]
        launched = dynamic.execute(argv, ranks, {"HVDKIT_CHECK_OUT": hvd_dir, "HVDKIT_CHECK_STEPS": str(steps)},
                                   timeout)
        hvd = HorovodRun(hvd_dir, ranks)
        reason = explain.unrecorded(hvd, launched, hvd_script, steps)
        seq = alt = None
        rows = {}
        if reason is None:
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                runs = [pool.submit(_replay, seq_script, script_args, os.path.join(out, order), hvd, order, timeout)
                        for order in ("rank", "reversed")]
                seq, alt = (r.result() for r in runs)
            rows = compare.steps(hvd, seq, alt, sorted(seq.done() & alt.done()))
        result = explain.verdict(hvd, seq_script, ranks, reason, seq, alt, rows)
        result["seconds"] = {"horovod": launched.seconds, "sequential": max(seq.seconds, alt.seconds) if seq else None,
                             "total": round(time.time() - t0, 1)}
        if keep:
            result["scratch"] = out
        return result
    finally:
        if not keep:
            shutil.rmtree(out, ignore_errors=True)


def _replay(seq_script, script_args, out, hvd, order, timeout):
    os.makedirs(out)
    argv = [sys.executable, "-m", "hvdkit.check.against.replay", seq_script, *script_args]
    env = {"HVDKIT_CHECK_OUT": out, "HVDKIT_CHECK_STEPS": str(hvd.steps()), "HVDKIT_AGAINST_RECORD": hvd.out,
           "HVDKIT_AGAINST_RANKS": str(hvd.ranks), "HVDKIT_AGAINST_ORDER": order}
    launched = dynamic.execute(argv, 1, env, timeout, mpi=False)
    paths = [os.path.join(out, f) for f in ("replay.json", "rank-0.json")]
    return Replay(store.read_json(paths[0]) if os.path.exists(paths[0]) else None,
                  RankRecord.load(paths[1]) if os.path.exists(paths[1]) else None, launched.seconds, out)
