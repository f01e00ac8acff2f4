"""Crystal-graph network for formation-energy regression (PNNL materials ML)."""
