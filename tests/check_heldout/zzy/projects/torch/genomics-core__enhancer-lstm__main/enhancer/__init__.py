"""STARR-seq enhancer activity models (genomics core)."""
