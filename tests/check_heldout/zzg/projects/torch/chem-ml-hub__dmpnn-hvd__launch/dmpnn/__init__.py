"""Directed message passing neural network (D-MPNN) for property prediction."""
