"""Bits of the PBS Pro / Torque environment the training code cares about."""
import os
import time


def _hms_to_seconds(text):
    parts = [int(p) for p in text.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    h, m, s = parts
    return h * 3600 + m * 60 + s


class PBSJob:
    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.job_id = env.get("PBS_JOBID")
        self.nodefile = env.get("PBS_NODEFILE")
        self.workdir = env.get("PBS_O_WORKDIR", os.getcwd())
        # qsub -l walltime=HH:MM:SS is not exported by every site; allow an override
        wall = env.get("PBS_WALLTIME") or env.get("JOB_WALLTIME", "")
        self.walltime = _hms_to_seconds(wall) if ":" in wall else (int(wall) if wall else None)
        self.started = time.time()

    @property
    def active(self):
        return self.job_id is not None

    def hosts(self):
        if not self.nodefile or not os.path.exists(self.nodefile):
            return ["localhost"]
        with open(self.nodefile) as f:
            return sorted(set(line.strip() for line in f if line.strip()))

    def seconds_left(self):
        if self.walltime is None:
            return float("inf")
        return self.walltime - (time.time() - self.started)

    def near_end(self, margin=600):
        return self.seconds_left() < margin
