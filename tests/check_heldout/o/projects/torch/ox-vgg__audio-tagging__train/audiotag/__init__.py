"""Audio tagging baselines (log-mel CNN) used in the group's AudioSet experiments."""
