"""Set-valued (multi-label) annotations: label sets and their codes, augmented kappa and
sharpening, on the engine's statistics."""
