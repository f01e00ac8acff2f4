"""NN half of the wind-power stack (the LightGBM half lives in lgbm/, single node)."""
