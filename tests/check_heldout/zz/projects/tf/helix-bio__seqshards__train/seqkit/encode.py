import numpy as np

_LUT = np.full(256, 4, dtype=np.int8)
for i, base in enumerate("ACGT"):
    _LUT[ord(base)] = i


def one_hot(seq, length):
    """Centre-crop or right-pad to `length`; N and other symbols become all-zero rows."""
    codes = _LUT[np.frombuffer(seq.encode("ascii"), dtype=np.uint8)]
    if len(codes) >= length:
        start = (len(codes) - length) // 2
        codes = codes[start:start + length]
    out = np.zeros((length, 4), dtype=np.float32)
    valid = codes < 4
    out[np.nonzero(valid)[0], codes[valid]] = 1.0
    return out
