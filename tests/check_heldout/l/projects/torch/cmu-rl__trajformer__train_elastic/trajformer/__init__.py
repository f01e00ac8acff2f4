"""Trajectory forecasting with a small transformer (ETH/UCY-style pedestrian data)."""
