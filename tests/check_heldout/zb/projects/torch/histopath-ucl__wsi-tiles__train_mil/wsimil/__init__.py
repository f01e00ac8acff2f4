"""Weakly supervised whole-slide classification (UCL computational pathology group)."""
