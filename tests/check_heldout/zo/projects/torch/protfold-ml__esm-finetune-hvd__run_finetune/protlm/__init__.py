"""protlm: small protein language model fine-tuning (subcellular localisation)."""
