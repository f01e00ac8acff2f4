"""QM9 fingerprint regression, hackathon code (team 5)."""
