"""Bits and pieces shared by the ECG notebooks."""
