"""Building footprint segmentation with an auxiliary boundary head."""
