"""The engine: levels, additive statistics and the one run (codes -> statistics ->
estimates -> labeled results). Imports schema, kernels and coefficients; never
uncertainty, reporting, multilabel, diagnostics, io, lazy or cli."""
