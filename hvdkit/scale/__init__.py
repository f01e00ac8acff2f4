"""The tools behind `hvdkit scale` (and `doctor`, `check --run`): launch ranks, time and record a run, tabulate scaling.

launch.py builds the launcher command and the ranks' environment; meter.py times a training loop on
rank 0 and builds its run record; record.py validates, writes and reads run records; scaling.py turns
the records of several rank counts into the efficiency table. Framework-free.
"""
