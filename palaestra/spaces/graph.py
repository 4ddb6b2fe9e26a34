"""The :class:`Graph` space: graphs with node and (optional) edge features."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence as SequenceOf
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from palaestra import logger
from palaestra.spaces._checks import reject_mask_and_probability, require
from palaestra.spaces._vector_utils import vector_utils
from palaestra.spaces.space import Space

# What unpacking a value that is not a batch of the node/edge space can raise.
_NOT_A_BATCH = (TypeError, ValueError, KeyError, IndexError, AttributeError)


class GraphInstance(NamedTuple):
    """One graph: stacked node features, stacked edge features and ``(num_edges, 2)`` links.

    ``edges`` and ``edge_links`` are ``None`` for a graph without edges.

    Example:
        >>> graph = GraphInstance(np.zeros((2, 1)), None, None)
        >>> graph.nodes.shape
        (2, 1)
    """

    nodes: Any
    edges: Any | None
    edge_links: npt.NDArray[Any] | None


class Graph(Space[GraphInstance]):
    """Graphs whose nodes are elements of ``node_space`` and edges of ``edge_space``.

    Args:
        node_space: the space of one node's features (usually a Box or Discrete).
        edge_space: the space of one edge's features, or ``None`` for graphs without edges.
        seed: seed or generator for sampling.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> Graph(Box(0.0, 1.0, (2,)), Discrete(3))
        Graph(Box(0.0, 1.0, (2,), float32), Discrete(3))
    """

    def __init__(
        self,
        node_space: Space[Any],
        edge_space: Space[Any] | None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        self.node_space = node_space
        self.edge_space = edge_space
        utils = vector_utils()
        self.batch_node_space = utils.batch_space(node_space, n=1)
        self.batch_edge_space = None if edge_space is None else utils.batch_space(edge_space, n=1)
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``False``: graphs have no fixed size."""
        return False

    def _feature_spaces(self) -> list[Space[Any]]:
        return [self.node_space] if self.edge_space is None else [self.node_space, self.edge_space]

    def seed(self, seed: int | tuple[int, ...] | None = None) -> tuple:
        """Seed the graph's generator and its node (and edge) space.

        Args:
            seed: ``None`` for fresh entropy; an ``int`` from which the feature spaces' seeds
                are drawn; or a sequence ``(graph, node[, edge])`` of seeds.

        Returns:
            The seeds used, in the order graph, node, edge.

        Raises:
            ValueError: for a seed sequence of the wrong length.
            TypeError: for any other seed type.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Graph(Discrete(2), None).seed((1, 2))
            (1, 2)
        """
        features = self._feature_spaces()
        if seed is None:
            return (super().seed(None), *(space.seed(None) for space in features))
        if isinstance(seed, int):
            own_seed = super().seed(seed)
            if len(features) == 1:
                subseeds = [self.np_random.integers(np.iinfo(np.int32).max)]
            else:
                subseeds = list(self.np_random.integers(np.iinfo(np.int32).max, size=(2,)))
            # Restart the graph's stream after drawing the feature seeds from it.
            super().seed(seed)
            return (own_seed, *(space.seed(int(sub)) for space, sub in zip(features, subseeds)))
        if isinstance(seed, (list, tuple)):
            if len(seed) != len(features) + 1:
                what = (
                    "two values for Graph and node"
                    if len(features) == 1
                    else ("three values for Graph, node and edge")
                )
                raise ValueError(f"Expects a tuple of {what} space, actual length: {len(seed)}")
            return (
                super().seed(seed[0]),
                *(space.seed(sub) for space, sub in zip(features, seed[1:])),
            )
        raise TypeError(f"Expects `None`, int or tuple of ints, actual type: {type(seed)}")

    def sample(
        self,
        mask: tuple[Any, Any] | None = None,
        probability: tuple[Any, Any] | None = None,
        num_nodes: int = 10,
        num_edges: int | None = None,
    ) -> GraphInstance:
        """Draw a graph with ``num_nodes`` nodes and random (or ``num_edges``) edges.

        Args:
            mask: ``(node_mask, edge_mask)`` passed to the batched node and edge spaces.
            probability: ``(node_probability, edge_probability)`` likewise.
            num_nodes: the number of nodes (positive).
            num_edges: the number of edges; drawn uniformly below ``n * (n - 1)`` if ``None``.

        Raises:
            ValueError: if both ``mask`` and ``probability`` are given.
            AssertionError: for a non-positive ``num_nodes`` or negative ``num_edges``.

        Example:
            >>> from palaestra.spaces import Box
            >>> graph = Graph(Box(0.0, 1.0, (2,)), None, seed=0).sample(num_nodes=3)
            >>> graph.nodes.shape, graph.edges
            ((3, 2), None)
        """
        require(
            num_nodes > 0,
            f"The number of nodes is expected to be greater than 0, actual value: {num_nodes}",
        )
        reject_mask_and_probability(mask, probability)
        kind, node_mask, edge_mask = None, None, None
        if mask is not None:
            kind, (node_mask, edge_mask) = "mask", mask
        elif probability is not None:
            kind, (node_mask, edge_mask) = "probability", probability
        if num_edges is None:
            num_edges = (
                int(self.np_random.integers(num_nodes * (num_nodes - 1))) if num_nodes > 1 else 0
            )
            if edge_mask is not None:
                edge_mask = tuple(edge_mask for _ in range(num_edges))
        else:
            if self.edge_space is None:
                logger.warn(f"The number of edges is set ({num_edges}) but the edge space is None.")
            require(
                num_edges >= 0,
                f"Expects the number of edges to be greater than 0, actual value: {num_edges}",
            )
        node_kwargs = {} if kind is None else {kind: node_mask}
        edge_kwargs = {} if kind is None else {kind: edge_mask}
        utils = vector_utils()
        nodes = utils.batch_space(self.node_space, num_nodes).sample(**node_kwargs)
        # The batched space sampled from a copy of the node generator: move the original on.
        self.node_space.np_random.random()
        if num_edges < 1 or self.edge_space is None:
            return GraphInstance(nodes, None, None)
        edges = utils.batch_space(self.edge_space, num_edges).sample(**edge_kwargs)
        self.edge_space.np_random.random()
        links = self.np_random.integers(low=0, high=num_nodes, size=(num_edges, 2), dtype=np.int32)
        return GraphInstance(nodes, edges, links)

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a :class:`GraphInstance` with valid nodes, edges and links.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> space = Graph(Discrete(2), None)
            >>> GraphInstance(np.array([0, 1]), None, None) in space
            True
        """
        if not isinstance(x, GraphInstance) or x.nodes is None:
            return False
        utils = vector_utils()
        try:
            nodes = list(utils.iterate(self.batch_node_space, x.nodes))
        except _NOT_A_BATCH:
            return False
        if not all(node in self.node_space for node in nodes):
            return False
        if x.edges is None or x.edge_links is None:
            return x.edges is None and x.edge_links is None
        if self.edge_space is None or not isinstance(x.edge_links, np.ndarray):
            return False
        try:
            edges = list(utils.iterate(self.batch_edge_space, x.edges))
        except _NOT_A_BATCH:
            return False
        return bool(
            all(edge in self.edge_space for edge in edges)
            and np.issubdtype(x.edge_links.dtype, np.integer)
            and x.edge_links.shape == (len(edges), 2)
            and np.all((x.edge_links >= 0) & (x.edge_links < len(nodes)))
        )

    def __repr__(self) -> str:
        return f"Graph({self.node_space}, {self.edge_space})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Graph)
            and self.node_space == other.node_space
            and self.edge_space == other.edge_space
        )

    def to_jsonable(self, sample_n: Iterable[GraphInstance]) -> list[dict[str, list]]:
        """Convert a batch of graphs to dicts with ``nodes`` (and ``edges``, ``edge_links``).

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Graph(Discrete(2), None).to_jsonable([GraphInstance(np.array([1]), None, None)])
            [{'nodes': [[1]]}]
        """
        result = []
        for sample in sample_n:
            entry = {"nodes": self.batch_node_space.to_jsonable([sample.nodes])}
            if sample.edges is not None and sample.edge_links is not None:
                entry["edges"] = self.batch_edge_space.to_jsonable([sample.edges])
                entry["edge_links"] = sample.edge_links.tolist()
            result.append(entry)
        return result

    def from_jsonable(self, sample_n: SequenceOf[dict[str, list]]) -> list[GraphInstance]:
        """Convert dicts made by :meth:`to_jsonable` back to graphs.

        Raises:
            AssertionError: if a graph has edges but the space has no edge space.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Graph(Discrete(2), None).from_jsonable([{"nodes": [[1]]}])[0].nodes
            array([1])
        """
        result = []
        for sample in sample_n:
            nodes = self.batch_node_space.from_jsonable(sample["nodes"])[0]
            if "edges" not in sample:
                result.append(GraphInstance(nodes, None, None))
                continue
            require(self.edge_space is not None, "Graph sample has edges but no edge space")
            edges = self.batch_edge_space.from_jsonable(sample["edges"])[0]
            links = np.asarray(sample["edge_links"], dtype=np.int32)
            result.append(GraphInstance(nodes, edges, links))
        return result
