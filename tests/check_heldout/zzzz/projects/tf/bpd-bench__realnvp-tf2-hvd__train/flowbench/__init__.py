"""flowbench: small normalizing-flow benchmarks reported in bits/dim."""
