"""Knowledge-preserving fine-tuning of pruned students."""
