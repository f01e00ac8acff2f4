"""Three-state protein secondary structure prediction (H/E/C) from sequence."""
