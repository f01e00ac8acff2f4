"""Deterministic scaffold split: largest scaffold groups go to train first."""
from collections import defaultdict

try:
    from rdkit.Chem.Scaffolds import MurckoScaffold
except ImportError:  # pragma: no cover
    MurckoScaffold = None


def scaffold_of(smiles):
    if MurckoScaffold is None:
        # crude fallback: ring-closure digits + aromatic atoms
        return "".join(c for c in smiles if c.isdigit() or c.islower()) or "acyclic"
    return MurckoScaffold.MurckoScaffoldSmiles(smiles=smiles, includeChirality=False)


def scaffold_split(smiles_list, val_frac, test_frac):
    groups = defaultdict(list)
    for i, s in enumerate(smiles_list):
        groups[scaffold_of(s)].append(i)
    ordered = sorted(groups.values(), key=lambda g: (len(g), g[0]), reverse=True)
    n = len(smiles_list)
    train_cut, val_cut = (1 - val_frac - test_frac) * n, (1 - test_frac) * n
    train, val, test = [], [], []
    for g in ordered:
        if len(train) + len(g) <= train_cut:
            train += g
        elif len(train) + len(val) + len(g) <= val_cut:
            val += g
        else:
            test += g
    return sorted(train), sorted(val), sorted(test)
