"""Knowledge-distillation utilities shared by the lab's KD experiments."""
