"""TF2 port of the ANI-1x style model (radial AEVs only)."""
