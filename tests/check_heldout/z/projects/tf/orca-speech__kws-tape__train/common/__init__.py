"""Utilities shared by the KWS entry scripts (train, export, streaming eval, calibration)."""
