"""Reading Horovod timelines (HOROVOD_TIMELINE files): summary, compare, slice, plot.

Framework-free; matplotlib is imported only by the plot.
"""
from hvdkit.timeline.parse import Trace, TraceError
from hvdkit.timeline.summary import Summary, summarize

__all__ = ["Trace", "TraceError", "Summary", "summarize"]
