"""KoBART abstractive summarisation fine-tuning."""
