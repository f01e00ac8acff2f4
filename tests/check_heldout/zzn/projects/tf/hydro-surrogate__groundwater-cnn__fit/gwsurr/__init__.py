"""Groundwater head surrogate: log-conductivity field + pumping rates -> steady hydraulic head."""
