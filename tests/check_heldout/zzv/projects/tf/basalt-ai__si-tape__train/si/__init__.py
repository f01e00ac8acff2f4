from .intelligence import SynapticIntelligence  # noqa: F401
