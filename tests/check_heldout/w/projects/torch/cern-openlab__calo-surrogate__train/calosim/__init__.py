"""Fast calorimeter-shower surrogate (regression of layer energy deposits from incident energy/angle)."""
