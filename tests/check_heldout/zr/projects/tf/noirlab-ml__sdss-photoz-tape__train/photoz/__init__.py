"""photoz: photometric redshifts from ugriz(+W1W2) magnitudes."""
