"""Surrogate of 0-D tokamak plasma profiles: actuator sequences -> (W_mhd, beta_N, li, q95) traces."""
