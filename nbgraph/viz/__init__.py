"""The graph view: a graph as DOT/SVG, and the interactive widget shown in notebooks."""

from .dot import LayoutUnavailable, to_dot, to_svg
from .graph_widget import GraphWidget

__all__ = ["GraphWidget", "LayoutUnavailable", "to_dot", "to_svg"]
