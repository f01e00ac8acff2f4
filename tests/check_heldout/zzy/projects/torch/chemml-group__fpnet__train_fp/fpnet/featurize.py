"""Morgan fingerprints with RDKit; hashed SMILES n-grams when RDKit is not installed (CI)."""
import hashlib

import numpy as np

try:
    from rdkit import Chem
    from rdkit.Chem import AllChem
except ImportError:  # pragma: no cover
    Chem = None


def _hashed_ngrams(smiles, n_bits, radius):
    fp = np.zeros(n_bits, dtype=np.float32)
    for n in range(1, radius + 2):
        for i in range(len(smiles) - n + 1):
            h = int(hashlib.md5(smiles[i:i + n].encode()).hexdigest()[:8], 16)
            fp[h % n_bits] = 1.0
    return fp


def fingerprint(smiles, n_bits=2048, radius=2):
    if Chem is None:
        return _hashed_ngrams(smiles, n_bits, radius)
    mol = Chem.MolFromSmiles(smiles)
    bv = AllChem.GetMorganFingerprintAsBitVect(mol, radius, nBits=n_bits)
    return np.array(bv, dtype=np.float32)


def featurize_all(smiles_list, n_bits, radius):
    return np.stack([fingerprint(s, n_bits, radius) for s in smiles_list])
