"""IPython and Jupyter integration: the kernel side of nbgraph's notebook features."""
