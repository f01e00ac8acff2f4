"""How far apart two float32 runs of one step may end when only the order of their sums differs.

The formula, why each term, and the largest |diff| / tolerance seen on the homework and ResNet-34 pairs:
docs/check.md, "Against a sequential script".
"""
import math

EPS32 = 2.0 ** -23   # float32's machine epsilon (spacing of floats in [1, 2))
KAPPA = 16.0


def bound(row, summands, scaled=False):
    """Largest |w_h - w_s| allowed for one tensor after one step (row: compare.step's, summands: samples)."""
    noise = row["noise_scaled"] if scaled else row["noise"]
    return KAPPA * noise + EPS32 * (math.sqrt(max(1, summands)) * row["max_update"] + 2 * row["max_weight"])
