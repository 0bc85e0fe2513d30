"""Source locations and which code is the user's: the leaf every other layer may use."""
