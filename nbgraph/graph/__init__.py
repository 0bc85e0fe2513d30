"""The IR: graphs of CALL, COND and WHILE nodes, their types, the facts about the NumPy
functions they apply, the passes over them and their text form."""
