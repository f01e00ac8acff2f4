"""Galaxy Zoo 2 morphology regression (37 vote fractions)."""
