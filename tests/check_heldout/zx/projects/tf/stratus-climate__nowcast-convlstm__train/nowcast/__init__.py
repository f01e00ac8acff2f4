"""Nowcasting research code (stratus-climate)."""
