"""seisml: seismic phase classification (ported from the mpi4py/TF1 version, 2024)."""
