"""MLP surrogate for airfoil polars (Cl, Cd, Cm from geometry + flow parameters)."""
