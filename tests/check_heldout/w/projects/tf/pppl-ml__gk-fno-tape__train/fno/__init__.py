"""Fourier neural operator pieces for gyrokinetic surrogates."""
