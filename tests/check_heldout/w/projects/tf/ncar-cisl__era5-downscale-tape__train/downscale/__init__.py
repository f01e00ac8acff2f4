"""Statistical downscaling of ERA5 2-m temperature (coarse 0.25deg -> fine 0.0625deg patches)."""
