"""churnkit: churn propensity models for the retention team."""
__version__ = "0.4.2"
