import numpy as np


def load_md17(path):
    z = np.load(path)
    return z["R"].astype(np.float32), z["z"].astype(np.int32), z["E"].astype(np.float32).reshape(-1)


def fake_md(n_conf=2000, n_atoms=9, seed=0):
    rng = np.random.RandomState(seed)
    z = rng.randint(1, 9, n_atoms).astype(np.int32)
    R = (rng.randn(n_conf, n_atoms, 3) * 1.5).astype(np.float32)
    E = -np.linalg.norm(R[:, :, None] - R[:, None], axis=-1).mean((1, 2)).astype(np.float32)
    return R, z, E


def radius_batch(R, z, E, idx, cutoff, noise=0.0):
    """Flatten a batch of conformations into one graph with all pairs closer than `cutoff`."""
    pos, species, src, dst, mol = [], [], [], [], []
    n_atoms = R.shape[1]
    for b, i in enumerate(idx):
        r = R[i] + np.random.normal(0, noise, R[i].shape).astype(np.float32) if noise else R[i]
        d = np.linalg.norm(r[:, None] - r[None], axis=-1)
        s, t = np.nonzero((d < cutoff) & (d > 0))
        src.append(s + b * n_atoms)
        dst.append(t + b * n_atoms)
        pos.append(r)
        species.append(z)
        mol.append(np.full(n_atoms, b, np.int32))
    return {"pos": np.concatenate(pos), "z": np.concatenate(species), "src": np.concatenate(src).astype(np.int32),
            "dst": np.concatenate(dst).astype(np.int32), "mol": np.concatenate(mol),
            "n_mol": np.int32(len(idx))}, E[idx]


def iterate(R, z, E, indices, batch_size, cutoff, shuffle, noise=0.0):
    order = np.random.permutation(indices) if shuffle else np.asarray(indices)
    for b in range(len(order) // batch_size):
        yield radius_batch(R, z, E, order[b * batch_size:(b + 1) * batch_size], cutoff, noise)
