"""SLURM helpers: how much wall time is left, and requeue."""
import os
import subprocess
import time


def job_id():
    return os.environ.get("SLURM_JOB_ID")


def end_time():
    """Epoch seconds at which SLURM kills the job (SLURM_JOB_END_TIME, newer SLURM), else None."""
    value = os.environ.get("SLURM_JOB_END_TIME")
    if value:
        return float(value)
    jid = job_id()
    if not jid:
        return None
    try:
        out = subprocess.run(["squeue", "-h", "-j", jid, "-o", "%L"], capture_output=True, text=True,
                             timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not out or out == "UNLIMITED":
        return None
    days, _, rest = out.rpartition("-")
    parts = [int(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    left = int(days or 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
    return time.time() + left


def requeue():
    jid = job_id()
    if jid:
        subprocess.run(["scontrol", "requeue", jid], check=False)
