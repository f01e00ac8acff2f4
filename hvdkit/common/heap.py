"""Keep a training step's large buffers in glibc's malloc heap instead of mapping them afresh every step.

glibc serves an allocation above its mmap threshold (128 KiB at start, raised as such blocks are freed, at
most 32 MiB) with its own mmap, and gives it back with munmap when it is freed; free memory at the heap's
top above the trim threshold goes back to the OS too. A PyTorch CPU step allocates and frees its activations
and gradients, 1-10 MB each for ResNet34 at 64 px and batch 16, every step: each time the kernel maps fresh
pages and faults every one of them in again (zero-filled), on the cores that should be computing.

keep_in_heap() sets both thresholds so that blocks up to 32 MiB come from the heap and freed heap memory
stays with the process for the next step. The cost is memory: what a step freed is kept (the resident size
stays near the step's peak, as a caching allocator's would) instead of being returned between steps.

Measured on the ResNet34 step: docs/performance.md, the `glibc_heap` rows and the hand A/Bs they cite.
hvdkit.torch.init() calls it on ranks without a GPU; TensorFlow's step gained nothing from the same thresholds,
so hvdkit.tensorflow does not. It does nothing when the user chose thresholds (MALLOC_MMAP_THRESHOLD_,
MALLOC_TRIM_THRESHOLD_, or glibc.malloc.mmap_threshold / trim_threshold in GLIBC_TUNABLES), when
HVDKIT_KEEP_HEAP=0, or without glibc.
"""
import ctypes
import os

M_TRIM_THRESHOLD = -1  # glibc's <malloc.h>
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2**20  # glibc's cap on its own dynamic threshold (DEFAULT_MMAP_THRESHOLD_MAX, 64-bit)
TRIM_THRESHOLD = 2**31 - 1  # mallopt takes an int: the largest keeps every freed block for the next step

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
_USER_TUNABLES = ("glibc.malloc.mmap_threshold=", "glibc.malloc.trim_threshold=")


def user_chose(env=None):
    """True when the environment already decides glibc's thresholds, or opts out of hvdkit's."""
    env = os.environ if env is None else env
    if env.get("HVDKIT_KEEP_HEAP", "1") == "0" or any(name in env for name in _USER_SETTINGS):
        return True
    tunables = env.get("GLIBC_TUNABLES", "")
    return any(t in tunables for t in _USER_TUNABLES)


def keep_in_heap(env=None):
    """Set glibc's mmap and trim thresholds (see the module docstring); True if they were set."""
    if user_chose(env):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc (musl, macOS): nothing to tune
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
