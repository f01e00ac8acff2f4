"""PetFinder Pawpularity - DSCI capstone, group 4."""
