"""Mesh GNN for 6-h global weather increments on a refined icosahedral grid (GSL AI/ML group)."""
