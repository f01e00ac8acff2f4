import numpy as np


def photoz_scores(z_phot, z_spec):
    dz = (z_phot - z_spec) / (1 + z_spec)
    med = np.median(dz)
    return {
        "bias": float(med),
        "sigma_nmad": float(1.4826 * np.median(np.abs(dz - med))),
        "outlier_frac": float(np.mean(np.abs(dz) > 0.15)),
    }
