"""Learning without Forgetting (Li & Hoiem) - class-incremental variant."""
