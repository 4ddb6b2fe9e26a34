"""Environment and wrapper specifications: what :func:`~palaestra.make` needs to build a stack.

:class:`EnvSpec` and :class:`WrapperSpec` live in this leaf module, which imports nothing else
of palaestra at module level, so that the core classes, the vector envs, the wrappers and the
registry can all name them without importing one another. Import them from
:mod:`palaestra.envs.registration` (as Gymnasium spells it) or from here.

Example:
    >>> from palaestra.env_spec import EnvSpec
    >>> EnvSpec("MyGame/Snake-v3", entry_point="my_game:Snake").version
    3
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EnvSpec", "WrapperSpec"]


@dataclass
class WrapperSpec:
    """How to rebuild one wrapper of an environment stack.

    Args:
        name: the wrapper's class name.
        entry_point: ``"module:ClassName"`` of the wrapper.
        kwargs: the wrapper's constructor arguments (without ``env``), or ``None`` when the
            wrapper does not record them and so cannot be rebuilt.

    Example:
        >>> WrapperSpec("Clip", "my_wrappers:Clip", {"low": 0})
        WrapperSpec(name='Clip', entry_point='my_wrappers:Clip', kwargs={'low': 0})
    """

    name: str
    entry_point: str
    kwargs: dict[str, Any] | None


@dataclass
class EnvSpec:
    """Everything needed to build an environment with :func:`make`.

    Args:
        id: the environment id, ``[namespace/]name[-vN]``.
        entry_point: the environment class or factory, or its ``"module:Attr"`` path.
        reward_threshold: the return at which the task counts as solved.
        nondeterministic: whether equal seeds and actions can still give different outcomes.
        max_episode_steps: episode length after which :class:`TimeLimit` truncates.
        order_enforce: whether :class:`OrderEnforcing` is applied.
        disable_env_checker: whether :class:`PassiveEnvChecker` is left out.
        kwargs: keyword arguments for the entry point.
        additional_wrappers: wrappers applied after the standard ones, in order.
        vector_entry_point: the natively vectorized class or factory, or its path.

    Attributes:
        namespace: parsed from ``id`` (``None`` without one).
        name: parsed from ``id``.
        version: parsed from ``id`` (``None`` without one).

    Raises:
        palaestra.error.Error: ``id`` is malformed.

    Example:
        >>> spec = EnvSpec("MyGame/Snake-v3", entry_point="my_game:Snake")
        >>> spec.namespace, spec.name, spec.version
        ('MyGame', 'Snake', 3)
    """

    id: str
    entry_point: Callable[..., Any] | str | None = None

    reward_threshold: float | None = None
    nondeterministic: bool = False

    max_episode_steps: int | None = None
    order_enforce: bool = True
    disable_env_checker: bool = False

    kwargs: dict[str, Any] = field(default_factory=dict)

    namespace: str | None = field(init=False)
    name: str = field(init=False)
    version: int | None = field(init=False)

    # A factory, not a class attribute: ``make`` must see it missing on specs pickled without it.
    additional_wrappers: tuple[WrapperSpec, ...] = field(default_factory=tuple)

    vector_entry_point: Callable[..., Any] | str | None = None

    def __post_init__(self) -> None:
        # Imported on use: the registration package imports this module.
        from palaestra.envs.registration._ids import parse_env_id

        self.namespace, self.name, self.version = parse_env_id(self.id)

    def make(self, **kwargs: Any) -> Any:
        """Build the environment this spec describes; ``kwargs`` go to :func:`make`.

        Example:
            >>> import palaestra as gym
            >>> gym.spec("CartPole-v1").make().spec.id
            'CartPole-v1'
        """
        from palaestra.envs.registration._make import make

        return make(self, **kwargs)

    def to_json(self) -> str:
        """Serialise the spec to a JSON string (the parsed id parts are left out).

        Returns:
            The JSON text, readable by :meth:`from_json`.

        Raises:
            ValueError: an entry point is a callable rather than a ``"module:Attr"`` string.
            TypeError: a kwarg value cannot be written as JSON.

        Example:
            >>> EnvSpec("Snake-v0", "my_game:Snake").to_json()[:48]
            '{"id": "Snake-v0", "entry_point": "my_game:Snake'
        """
        fields = dataclasses.asdict(self)
        for derived in ("namespace", "name", "version"):
            del fields[derived]
        for key, value in fields.items():
            if callable(value):
                # Imported here so that this module stays a leaf of the import graph.
                from palaestra.utils.library_name import acting_name

                raise ValueError(
                    f"Callable found in {self.id} for {key} attribute with value={value}. "
                    f"Currently, {acting_name('Gymnasium')} does not support serialising "
                    "callables. "
                    "Register the entry point as a 'module:Attr' string instead."
                )
        return json.dumps(fields)

    @staticmethod
    def from_json(json_env_spec: str) -> EnvSpec:
        """Rebuild a spec written by :meth:`to_json`.

        Args:
            json_env_spec: the JSON text.

        Returns:
            The environment spec, with its wrapper specs as :class:`WrapperSpec` objects.

        Raises:
            ValueError: the JSON does not describe an env spec or a wrapper spec.

        Example:
            >>> spec = EnvSpec("Snake-v0", "my_game:Snake", kwargs={"size": 4})
            >>> EnvSpec.from_json(spec.to_json()) == spec
            True
        """
        fields = json.loads(json_env_spec)
        wrapper_specs = []
        for wrapper_fields in fields.pop("additional_wrappers", []):
            try:
                wrapper_specs.append(WrapperSpec(**wrapper_fields))
            except Exception as e:
                raise ValueError(
                    f"An issue occurred when trying to make {wrapper_fields} a WrapperSpec"
                ) from e
        try:
            env_spec = EnvSpec(**fields)
        except Exception as e:
            raise ValueError(f"An issue occurred when trying to make {fields} an EnvSpec") from e
        env_spec.additional_wrappers = tuple(wrapper_specs)
        return env_spec

    def pprint(
        self,
        disable_print: bool = False,
        include_entry_points: bool = False,
        print_all: bool = False,
    ) -> str | None:
        """Print the spec one field per line, leaving out fields at their defaults.

        Args:
            disable_print: return the text instead of printing it.
            include_entry_points: include the env's and the wrappers' entry points.
            print_all: include every field, defaults too.

        Returns:
            The text when ``disable_print`` is true, else ``None``.

        Example:
            >>> EnvSpec("Snake-v0", "my_game:Snake", max_episode_steps=100).pprint()
            id=Snake-v0
            max_episode_steps=100
        """
        lines = [f"id={self.id}"]
        if print_all or include_entry_points:
            lines.append(f"entry_point={self.entry_point}")
        optional_fields = (
            ("reward_threshold", self.reward_threshold is not None),
            ("nondeterministic", self.nondeterministic is not False),
            ("max_episode_steps", self.max_episode_steps is not None),
            ("order_enforce", self.order_enforce is not True),
            ("disable_env_checker", self.disable_env_checker is not False),
        )
        for name, differs_from_default in optional_fields:
            if print_all or differs_from_default:
                lines.append(f"{name}={getattr(self, name)}")
        if print_all or self.additional_wrappers:
            lines.append(self._wrappers_text(include_entry_points))
        text = "\n".join(lines)
        if disable_print:
            return text
        print(text)
        return None

    def _wrappers_text(self, include_entry_points: bool) -> str:
        if not self.additional_wrappers:
            return "additional_wrappers=[]"
        entries = []
        for wrapper in self.additional_wrappers:
            entry_point = f", entry_point={wrapper.entry_point}" if include_entry_points else ""
            entries.append(f"\n\tname={wrapper.name}{entry_point}, kwargs={wrapper.kwargs}")
        return f"additional_wrappers=[{','.join(entries)}\n]"
