"""mace-tiny: a toy higher-body-order message passing potential."""
