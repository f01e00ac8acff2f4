"""SegNet-lite for building footprints. TF1 code base, being moved to TF2 (eager)."""
