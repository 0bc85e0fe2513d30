"""Staging: traced values, the tracer that records graph nodes, and staged if/while/for."""
