from .matching import MatchingNetwork

__all__ = ["MatchingNetwork"]
