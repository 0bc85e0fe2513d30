"""One converter per construct, applied in the order of ``PIPELINE``."""
