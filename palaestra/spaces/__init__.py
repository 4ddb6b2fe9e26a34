"""Spaces describe the observations and actions of environments.

Every space can draw random members (``sample``), test membership (``contains`` / ``in``),
be seeded, compared, pickled and converted to JSON. Seeded sampling draws the same values as
Gymnasium 1.4 for the same seed.

Example:
    >>> from palaestra import spaces
    >>> space = spaces.Dict(position=spaces.Box(-1.0, 1.0, (2,)), gear=spaces.Discrete(3))
    >>> space
    Dict('position': Box(-1.0, 1.0, (2,), float32), 'gear': Discrete(3))
    >>> space.sample() in space
    True
"""

from palaestra.spaces.box import Box
from palaestra.spaces.dict import Dict
from palaestra.spaces.discrete import Discrete
from palaestra.spaces.graph import Graph, GraphInstance
from palaestra.spaces.multi_binary import MultiBinary
from palaestra.spaces.multi_discrete import MultiDiscrete
from palaestra.spaces.oneof import OneOf
from palaestra.spaces.sequence import Sequence
from palaestra.spaces.space import Space
from palaestra.spaces.text import Text
from palaestra.spaces.tuple import Tuple
from palaestra.spaces.utils import flatdim, flatten, flatten_space, unflatten

__all__ = [
    "Space",
    "Box",
    "Discrete",
    "MultiDiscrete",
    "MultiBinary",
    "Tuple",
    "Dict",
    "Text",
    "Sequence",
    "Graph",
    "GraphInstance",
    "OneOf",
    "flatdim",
    "flatten_space",
    "flatten",
    "unflatten",
]
