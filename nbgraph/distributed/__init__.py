"""Graph functions on Dask arrays: blockwise runs, reductions over blocks, shipping.

Calling a graph function on a ``dask.array.Array`` returns a lazy Dask array computed
block by block (``blockwise.py``, checked by ``axes.py``); ``map_reduce`` runs a
function that needs more than one block as per-block partials and a combine step
(``reduction.py``); graph functions pickle as their traced graphs, so workers need
no source files (``shipping.py``).  Needs the ``nbgraph[dask]`` extra.
"""

from .blockwise import BlockwiseError
from .reduction import map_reduce
from .shipping import ShippingError

__all__ = ["BlockwiseError", "ShippingError", "map_reduce"]
