"""NeuMF on implicit feedback (MovieLens-style ratings.dat)."""
