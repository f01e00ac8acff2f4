"""Shared pieces of the lab's on-policy agents (a2c, ppo and reinforce entry points)."""
