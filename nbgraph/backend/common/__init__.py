"""What both Numba backends share: who owns an array (in-place updates), fusion groups,
and the arguments they cannot compile for."""
