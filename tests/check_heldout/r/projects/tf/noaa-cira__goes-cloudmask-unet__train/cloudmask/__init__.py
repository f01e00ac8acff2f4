"""GOES-16 cloud-mask U-Net (CIRA ML group)."""
