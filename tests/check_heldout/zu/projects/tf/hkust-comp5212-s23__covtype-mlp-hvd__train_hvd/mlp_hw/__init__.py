"""COMP5212 programming assignment 2 -> course project (forest cover type)."""
