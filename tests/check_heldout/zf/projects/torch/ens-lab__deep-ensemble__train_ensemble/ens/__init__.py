"""Deep ensembles for tabular regression/classification (lab-internal)."""
