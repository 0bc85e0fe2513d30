"""Graph functions on Dask arrays: blockwise runs, reductions over blocks, shipping.

Calling a graph function on a ``dask.array.Array`` returns a lazy Dask array computed
block by block (``blockwise.py``, checked by ``axes.py``); ``map_reduce`` runs a
function that needs more than one block as per-block partials and a combine step
(``reduction.py``); graph functions pickle as their traced graphs, so workers need
no source files (``shipping.py``).  Needs the ``nbgraph[dask]`` extra.
"""

from ..api import register_array_call, register_pickling
from .blockwise import BlockwiseError, call_blockwise
from .inputs import holds_dask_array
from .reduction import map_reduce
from .shipping import ShippingError, reduce_function

register_array_call(holds_dask_array, call_blockwise)  # a lazy Dask array, block by block
register_pickling(reduce_function)  # as traced graphs: workers need no source

__all__ = ["BlockwiseError", "ShippingError", "map_reduce"]
