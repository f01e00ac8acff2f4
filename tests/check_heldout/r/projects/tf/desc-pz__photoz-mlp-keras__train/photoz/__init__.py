"""Photo-z MLP for DESC data challenge catalogues."""
