"""The environment registry: ids, specs, and the ``make`` / ``make_vec`` factories.

An environment is registered once under an id of the form ``[namespace/]Name[-vN]`` and
later built by id. The :class:`EnvSpec` that describes it travels with every env made from
it (``env.spec``), complete with the constructor kwargs and the wrappers that were applied,
so ``make(env.spec)`` builds the same stack again.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("CartPole-v1", sutton_barto_reward=True)
    >>> env.spec.kwargs
    {'sutton_barto_reward': True}
    >>> gym.make(env.spec).spec == env.spec
    True
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import difflib
import importlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from palaestra import error, logger
from palaestra.core import Env, Wrapper

if TYPE_CHECKING:
    from palaestra.vector import VectorEnv

__all__ = [
    "registry",
    "current_namespace",
    "EnvSpec",
    "WrapperSpec",
    "VectorizeMode",
    "register",
    "make",
    "make_vec",
    "spec",
    "pprint_registry",
    "register_envs",
    "namespace",
    "parse_env_id",
    "get_env_id",
    "find_highest_version",
    "load_env_creator",
]

# ``[namespace/]name[-vN]``: the name is matched lazily so a trailing ``-vN`` is the version.
ENV_ID_RE = re.compile(r"(?:(?P<namespace>[\w:-]+)/)?(?P<name>[\w:.-]+?)(?:-v(?P<version>\d+))?")


class EnvCreator(Protocol):
    """Anything that builds an :class:`~palaestra.Env` from keyword arguments."""

    def __call__(self, **kwargs: Any) -> Env: ...


class VectorEnvCreator(Protocol):
    """Anything that builds a vector env from ``num_envs`` and keyword arguments."""

    def __call__(self, **kwargs: Any) -> VectorEnv: ...


# ---------------------------------------------------------------------------------------------
# Environment ids


def parse_env_id(env_id: str) -> tuple[str | None, str, int | None]:
    """Split an id ``[namespace/]name[-vN]`` into its namespace, name and version.

    Args:
        env_id: the id to split.

    Returns:
        ``(namespace, name, version)``; namespace and version are ``None`` when absent.

    Raises:
        palaestra.error.Error: the id does not have that form.

    Example:
        >>> parse_env_id("MyGame/Snake-v3")
        ('MyGame', 'Snake', 3)
        >>> parse_env_id("Snake")
        (None, 'Snake', None)
    """
    match = ENV_ID_RE.fullmatch(env_id)
    if match is None:
        raise error.Error(
            f"Malformed environment ID: {env_id}. (Currently all IDs must be of the form "
            "[namespace/](env-name)-v(version). (namespace is optional))"
        )
    version = match["version"]
    return match["namespace"], match["name"], None if version is None else int(version)


def get_env_id(ns: str | None, name: str, version: int | None) -> str:
    """Join a namespace, name and version into an id; the inverse of :func:`parse_env_id`.

    Args:
        ns: the namespace, or ``None``.
        name: the environment name.
        version: the version number, or ``None``.

    Returns:
        The environment id.

    Example:
        >>> get_env_id("MyGame", "Snake", 3)
        'MyGame/Snake-v3'
        >>> get_env_id(None, "Snake", None)
        'Snake'
    """
    env_id = name if ns is None else f"{ns}/{name}"
    return env_id if version is None else f"{env_id}-v{version}"


# ---------------------------------------------------------------------------------------------
# Specifications


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
    entry_point: EnvCreator | str | None = field(default=None)

    reward_threshold: float | None = field(default=None)
    nondeterministic: bool = field(default=False)

    max_episode_steps: int | None = field(default=None)
    order_enforce: bool = field(default=True)
    disable_env_checker: bool = field(default=False)

    kwargs: dict[str, Any] = field(default_factory=dict)

    namespace: str | None = field(init=False)
    name: str = field(init=False)
    version: int | None = field(init=False)

    additional_wrappers: tuple[WrapperSpec, ...] = field(default_factory=tuple)

    vector_entry_point: VectorEnvCreator | str | None = field(default=None)

    def __post_init__(self) -> None:
        self.namespace, self.name, self.version = parse_env_id(self.id)

    def make(self, **kwargs: Any) -> Env:
        """Build the environment this spec describes; ``kwargs`` go to :func:`make`.

        Example:
            >>> import palaestra as gym
            >>> gym.spec("CartPole-v1").make().spec.id
            'CartPole-v1'
        """
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
                raise ValueError(
                    f"Callable found in {self.id} for {key} attribute with value={value}. "
                    "Currently, palaestra does not support serialising callables; "
                    "register the entry point as a 'module:Attr' string instead."
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


class VectorizeMode(Enum):
    """How :func:`make_vec` runs its copies of an environment.

    Example:
        >>> VectorizeMode("sync")
        <VectorizeMode.SYNC: 'sync'>
    """

    ASYNC = "async"
    SYNC = "sync"
    VECTOR_ENTRY_POINT = "vector_entry_point"
    POOL = "pool"


# ---------------------------------------------------------------------------------------------
# The registry

registry: dict[str, EnvSpec] = {}
"""Every registered spec by id. A plain dict: ``del registry[id]`` unregisters."""

current_namespace: str | None = None
"""The namespace that :func:`register` forces on new ids inside :func:`namespace`."""


@contextlib.contextmanager
def namespace(ns: str) -> Iterator[None]:
    """Register every environment inside the ``with`` block under namespace ``ns``.

    Args:
        ns: the namespace to use.

    Example:
        >>> with namespace("Docs"):
        ...     register("Snake-v0", entry_point="my_game:Snake")
        >>> "Docs/Snake-v0" in registry
        True
        >>> del registry["Docs/Snake-v0"]
    """
    global current_namespace
    outer_namespace = current_namespace
    current_namespace = ns
    try:
        yield
    finally:
        current_namespace = outer_namespace


def register_envs(env_module: ModuleType) -> None:
    """Do nothing; it marks a module imported only to register its envs as used.

    Linters and IDEs drop imports that look unused; ``register_envs(module)`` keeps them.

    Args:
        env_module: the module whose import registered environments.

    Example:
        >>> import palaestra.envs
        >>> register_envs(palaestra.envs)
    """


def register(
    id: str,
    entry_point: EnvCreator | str | None = None,
    reward_threshold: float | None = None,
    nondeterministic: bool = False,
    max_episode_steps: int | None = None,
    order_enforce: bool = True,
    disable_env_checker: bool = False,
    additional_wrappers: tuple[WrapperSpec, ...] = (),
    vector_entry_point: VectorEnvCreator | str | None = None,
    kwargs: dict | None = None,
) -> None:
    """Add an environment to the registry so :func:`make` can build it by id.

    Registering an id again replaces the old spec (with a warning).

    Args:
        id: ``[namespace/]name[-vN]``; inside :func:`namespace` the namespace is replaced.
        entry_point: the env class or factory, or ``"module:Attr"`` (imported on ``make``).
        reward_threshold: the return at which the task counts as solved.
        nondeterministic: whether equal seeds and actions can give different outcomes.
        max_episode_steps: default episode length for :class:`TimeLimit`.
        order_enforce: whether ``make`` applies :class:`OrderEnforcing`.
        disable_env_checker: whether ``make`` leaves out :class:`PassiveEnvChecker`.
        additional_wrappers: wrappers ``make`` applies after the standard ones.
        vector_entry_point: the natively vectorized env class or factory, or its path.
        kwargs: default constructor arguments (``make``'s kwargs override them).

    Raises:
        ValueError: neither entry point is given.
        palaestra.error.Error: ``id`` is malformed.
        palaestra.error.RegistrationError: mixing versioned and unversioned ids of one name.

    Example:
        >>> register("Docs/Snake-v0", entry_point="my_game:Snake", max_episode_steps=50)
        >>> registry["Docs/Snake-v0"].max_episode_steps
        50
        >>> del registry["Docs/Snake-v0"]
    """
    if entry_point is None and vector_entry_point is None:
        raise ValueError(
            f"Either `entry_point` or `vector_entry_point` (or both) must be provided to "
            f"register {id!r}."
        )
    ns, name, version = parse_env_id(id)
    kwargs = {} if kwargs is None else kwargs
    if current_namespace is not None:
        custom_namespace = kwargs.get("namespace")
        if custom_namespace is not None and custom_namespace != current_namespace:
            logger.warn(
                f"Custom namespace `{custom_namespace}` is being overridden by namespace "
                f"`{current_namespace}`. If you are developing a plugin you shouldn't specify a "
                "namespace in `register` calls. The namespace is specified through the entry "
                "point package metadata."
            )
        ns = current_namespace

    new_spec = EnvSpec(
        id=get_env_id(ns, name, version),
        entry_point=entry_point,
        reward_threshold=reward_threshold,
        nondeterministic=nondeterministic,
        max_episode_steps=max_episode_steps,
        order_enforce=order_enforce,
        disable_env_checker=disable_env_checker,
        kwargs=kwargs,
        additional_wrappers=additional_wrappers,
        vector_entry_point=vector_entry_point,
    )
    _check_versioning_is_consistent(new_spec)
    if new_spec.id in registry:
        logger.warn(f"Overriding environment {new_spec.id} already in registry.")
    registry[new_spec.id] = new_spec


def _specs_named(ns: str | None, name: str) -> list[EnvSpec]:
    return [s for s in registry.values() if s.namespace == ns and s.name == name]


def _check_versioning_is_consistent(new_spec: EnvSpec) -> None:
    """Refuse mixing versioned and unversioned ids of one name (``make("Name")`` is ambiguous)."""
    same_name = _specs_named(new_spec.namespace, new_spec.name)
    unversioned = next((s for s in same_name if s.version is None), None)
    versioned = [s for s in same_name if s.version is not None]
    if new_spec.version is not None and unversioned is not None:
        raise error.RegistrationError(
            f"Can't register the versioned environment `{new_spec.id}` when the unversioned "
            f"environment `{unversioned.id}` of the same name already exists."
        )
    if new_spec.version is None and versioned:
        latest = max(versioned, key=lambda s: s.version)
        raise error.RegistrationError(
            f"Can't register the unversioned environment `{new_spec.id}` when the versioned "
            f"environment `{latest.id}` of the same name already exists. Note: the default "
            "behavior is that `palaestra.make` with the unversioned environment will return "
            "the latest versioned environment"
        )


# ---------------------------------------------------------------------------------------------
# Looking specs up


def find_highest_version(ns: str | None, name: str) -> int | None:
    """Return the highest registered version of ``ns/name``, or ``None`` if it has none.

    Args:
        ns: the namespace, or ``None``.
        name: the environment name.

    Example:
        >>> find_highest_version(None, "CartPole")
        1
    """
    versions = [s.version for s in _specs_named(ns, name) if s.version is not None]
    return max(versions, default=None)


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(candidates), n=1)
    return matches[0] if matches else None


def _check_namespace_exists(ns: str | None) -> None:
    if ns is None:
        return
    namespaces = {s.namespace for s in registry.values() if s.namespace is not None}
    if ns in namespaces:
        return
    suggestion = _closest(ns, namespaces)
    if suggestion is not None:
        hint = f"Did you mean: `{suggestion}`?"
    else:
        hint = f"Have you installed the proper package for {ns}?"
    raise error.NamespaceNotFound(f"Namespace {ns} not found. {hint}")


def _check_name_exists(ns: str | None, name: str) -> None:
    _check_namespace_exists(ns)
    names = {s.name for s in registry.values() if s.namespace == ns}
    if name in names:
        return
    suggestion = _closest(name, names)
    where = f" in namespace {ns}" if ns else ""
    hint = f" Did you mean: `{suggestion}`?" if suggestion is not None else ""
    raise error.NameNotFound(f"Environment `{name}` doesn't exist{where}.{hint}")


def _check_version_exists(ns: str | None, name: str, version: int | None) -> None:
    """Raise the most helpful error for an id that is not registered as written.

    Returns silently when the id is registered, or when nothing more specific than "not
    registered" can be said.
    """
    if get_env_id(ns, name, version) in registry:
        return
    _check_name_exists(ns, name)
    if version is None:
        return

    unversioned_id = get_env_id(ns, name, None)
    message = f"Environment version `v{version}` for environment `{unversioned_id}` doesn't exist."
    same_name = sorted(_specs_named(ns, name), key=lambda s: -1 if s.version is None else s.version)
    default = next((s for s in same_name if s.version is None), None)
    if default is not None:
        message += f" It provides the default version `{default.id}`."
        if len(same_name) == 1:
            raise error.DeprecatedEnv(message)

    versioned = [s for s in same_name if s.version is not None]
    if not versioned:
        return
    latest = versioned[-1]
    if version > latest.version:
        listed = ", ".join(f"`v{s.version}`" for s in same_name)
        raise error.VersionNotFound(f"{message} It provides versioned environments: [ {listed} ].")
    if version < latest.version:
        raise error.DeprecatedEnv(
            f"Environment version v{version} for `{unversioned_id}` is deprecated. "
            f"Please use `{latest.id}` instead."
        )


def _import_id_module(module: str) -> None:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"{e}. Environment registration via importing a module failed. "
            f"Check whether '{module}' contains env registration and can be imported."
        ) from e


def _find_spec(env_id: str) -> EnvSpec:
    """Look up an id as ``make`` understands it: ``"module:"`` prefix, unversioned = latest."""
    module, separator, env_name = env_id.partition(":")
    if separator:
        _import_id_module(module)
    else:
        env_name = env_id

    ns, name, version = parse_env_id(env_name)
    env_spec = registry.get(env_name)
    latest = find_highest_version(ns, name)
    if version is not None and latest is not None and latest > version:
        logger.deprecation(
            f"The environment {env_name} is out of date. You should consider "
            f"upgrading to version `v{latest}`."
        )
    if version is None and latest is not None:
        latest_id = get_env_id(ns, name, latest)
        env_spec = registry.get(latest_id)
        logger.warn(
            f"Using the latest versioned environment `{latest_id}` "
            f"instead of the unversioned environment `{env_name}`."
        )
        version = latest

    if env_spec is None:
        _check_version_exists(ns, name, version)
        raise error.Error(
            f"No registered env with id: {env_name}. Did you register it, or import the package "
            "that registers it? Use `palaestra.pprint_registry()` to see all of the registered "
            "environments."
        )
    return env_spec


def spec(env_id: str) -> EnvSpec:
    """Return the registered :class:`EnvSpec` of ``env_id`` (taken literally, no version guessing).

    Args:
        env_id: ``[namespace/]name[-vN]``.

    Raises:
        palaestra.error.NamespaceNotFound: no env has that namespace.
        palaestra.error.NameNotFound: no env has that name (with a did-you-mean hint).
        palaestra.error.VersionNotFound: the version is newer than any registered one.
        palaestra.error.DeprecatedEnv: a newer version replaces the requested one.
        palaestra.error.Error: the id is malformed or otherwise unregistered.

    Example:
        >>> spec("CartPole-v1").reward_threshold
        475.0
    """
    env_spec = registry.get(env_id)
    if env_spec is None:
        ns, name, version = parse_env_id(env_id)
        _check_version_exists(ns, name, version)
        raise error.Error(f"No registered env with id: {env_id}")
    return env_spec


def load_env_creator(name: str) -> EnvCreator | VectorEnvCreator:
    """Import the object named by an entry point string ``"module.path:Attr"``.

    Args:
        name: the entry point.

    Returns:
        The named attribute, normally an env class.

    Raises:
        ValueError: ``name`` is not of the form ``"module:Attr"``.
        ModuleNotFoundError: the module cannot be imported.
        AttributeError: the module has no such attribute.

    Example:
        >>> load_env_creator("palaestra.core:Env").__name__
        'Env'
    """
    module_name, separator, attribute = name.partition(":")
    if not separator or not module_name or not attribute or ":" in attribute:
        raise ValueError(
            f"Entry point {name!r} is malformed: expected 'module.path:Attribute', "
            "e.g. 'palaestra.envs.classic_control.cartpole:CartPoleEnv'."
        )
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError as e:
        raise AttributeError(
            f"Entry point {name!r}: module {module_name!r} has no attribute {attribute!r}."
        ) from e


def _resolve_creator(entry_point: Callable | str) -> Callable:
    return entry_point if callable(entry_point) else load_env_creator(entry_point)


# ---------------------------------------------------------------------------------------------
# make


def _check_metadata(metadata: Any) -> None:
    if not isinstance(metadata, dict):
        raise error.InvalidMetadata(
            f"Expect the environment metadata to be dict, actual type: {type(metadata)}"
        )
    render_modes = metadata.get("render_modes")
    if render_modes is None:
        logger.warn(
            "The environment creator metadata doesn't include `render_modes`, "
            f"contains: {list(metadata.keys())}"
        )
    elif not isinstance(render_modes, Iterable):
        logger.warn(
            "Expects the environment metadata render_modes to be a Iterable, "
            f"actual type: {type(render_modes)}"
        )


def _declared_render_modes(env_creator: Callable) -> Any:
    """Return the creator's ``metadata["render_modes"]``, or ``None`` when it declares none."""
    if not hasattr(env_creator, "metadata"):
        return None
    metadata = env_creator.metadata
    # A wrapper class exposes ``metadata`` as a property: nothing to check before building.
    if isinstance(metadata, property):
        return None
    _check_metadata(metadata)
    return metadata.get("render_modes")


def _plan_rendering(render_mode: str | None, render_modes: Any) -> tuple[str | None, str | None]:
    """Pick the render mode to build the env with and the wrapper that provides the asked one.

    Returns:
        ``(render_mode for the constructor, "HumanRendering" | "RenderCollection" | None)``.
    """
    if render_mode is None or render_modes is None or render_mode in render_modes:
        return render_mode, None
    displayable = [mode for mode in ("rgb_array", "rgb_array_list") if mode in render_modes]
    if render_mode == "human" and displayable:
        logger.warn(
            "You are trying to use 'human' rendering for an environment that doesn't natively "
            "support it. The HumanRendering wrapper is being applied to your environment."
        )
        return displayable[0], "HumanRendering"
    if render_mode.endswith("_list") and render_mode.removesuffix("_list") in render_modes:
        return render_mode.removesuffix("_list"), "RenderCollection"
    logger.warn(
        f"The environment is being initialised with render_mode={render_mode!r} "
        f"that is not in the possible render_modes ({render_modes})."
    )
    return render_mode, None


def _instantiate(
    env_spec: EnvSpec, env_creator: Callable, kwargs: dict[str, Any], render_wrapper: str | None
) -> Env:
    try:
        env = env_creator(**kwargs)
    except TypeError as e:
        if (
            render_wrapper == "HumanRendering"
            and "unexpected keyword argument 'render_mode'" in str(e)
        ):
            raise error.Error(
                f"You passed render_mode='human' although {env_spec.id} doesn't implement "
                "human-rendering natively. palaestra tried to apply the HumanRendering wrapper "
                "but the environment does not accept a `render_mode` argument, which the "
                "HumanRendering wrapper needs."
            ) from e
        raise TypeError(
            f"{e} was raised from the environment creator for {env_spec.id} with kwargs ({kwargs})"
        ) from e
    if not isinstance(env, Env):
        raise TypeError(_not_an_env_message(env))
    return env


def _not_an_env_message(env: Any) -> str:
    module = type(env).__module__.split(".")[0]
    if module in ("gym", "gymnasium"):
        return (
            f"The environment must inherit from the palaestra.Env class, actual class: "
            f"{type(env)} from `{module}`. Port the class to `palaestra.Env` (usually by "
            "changing its import to `import palaestra as gym`) or wrap it with the Gymnasium "
            "interop adapter."
        )
    return (
        f"The environment must inherit from the palaestra.Env class, actual class: {type(env)}. "
        "Subclass `palaestra.Env` and implement `reset` and `step`."
    )


def _check_prior_wrappers(env_spec: EnvSpec, env: Env) -> int:
    """Count wrappers the entry point applied itself; they must match the spec's first ones."""
    assert env.spec is not None
    prior = env.spec.additional_wrappers
    # More wrappers than the spec lists: the entry point's own stack, nothing to compare with.
    if len(prior) <= len(env_spec.additional_wrappers):
        for saved, recreated in zip(env_spec.additional_wrappers, prior):
            if saved != recreated:
                raise ValueError(
                    f"The environment's wrapper spec {recreated} is different from the saved "
                    f"`EnvSpec` additional wrapper {saved}"
                )
    return len(prior)


def _apply_wrapper_spec(env: Env, wrapper_spec: WrapperSpec) -> Env:
    if wrapper_spec.kwargs is None:
        raise ValueError(
            f"{wrapper_spec.name} wrapper does not inherit from "
            "`palaestra.utils.RecordConstructorArgs`, therefore, the wrapper cannot be recreated."
        )
    return load_env_creator(wrapper_spec.entry_point)(env=env, **wrapper_spec.kwargs)


def make(
    id: str | EnvSpec,
    max_episode_steps: int | None = None,
    disable_env_checker: bool | None = None,
    **kwargs: Any,
) -> Env:
    """Build a registered environment with its standard wrappers.

    The stack, innermost first: the env, :class:`PassiveEnvChecker` (unless disabled),
    :class:`OrderEnforcing` (if the spec's ``order_enforce``), :class:`TimeLimit` (if a step
    limit is known), the spec's ``additional_wrappers``, and finally :class:`HumanRendering` or
    :class:`RenderCollection` when the requested render mode is provided by a wrapper.

    Args:
        id: an id (optionally ``"module:Id"``, importing ``module`` first) or an
            :class:`EnvSpec`. An unversioned id means the latest version.
        max_episode_steps: overrides the spec's step limit; ``-1`` applies no :class:`TimeLimit`.
        disable_env_checker: overrides the spec's ``disable_env_checker`` unless ``None``.
        kwargs: constructor arguments, overriding the spec's ``kwargs``.

    Returns:
        The wrapped environment; ``env.spec`` describes it fully.

    Raises:
        TypeError: ``id`` is neither a string nor an EnvSpec; the constructor rejected the
            kwargs; or it did not return a :class:`~palaestra.Env`.
        palaestra.error.Error: the id is unknown (see :func:`spec` for the subclasses), or
            the spec has no entry point.
        palaestra.error.InvalidMetadata: the env class's ``metadata`` is not a dict.
        ValueError: a wrapper in ``additional_wrappers`` cannot be rebuilt.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", max_episode_steps=10)
        >>> env
        <TimeLimit<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>>
        >>> env.spec.max_episode_steps
        10
    """
    if isinstance(id, EnvSpec):
        env_spec = id
        if not hasattr(env_spec, "additional_wrappers"):
            logger.warn(
                "The env spec passed to `make` does not have a `additional_wrappers`, set it to "
                f"an empty tuple. Env_spec id={env_spec.id}"
            )
            env_spec.additional_wrappers = ()
    elif isinstance(id, str):
        env_spec = _find_spec(id)
    else:
        raise TypeError(f"Expected id to be a string or EnvSpec, got {type(id)}")

    env_kwargs = copy.deepcopy(env_spec.kwargs)
    env_kwargs.update(kwargs)
    if env_spec.entry_point is None:
        raise error.Error(f"{env_spec.id} registered but entry_point is not specified")
    env_creator = _resolve_creator(env_spec.entry_point)

    render_modes = _declared_render_modes(env_creator)
    built_mode, render_wrapper = _plan_rendering(env_kwargs.get("render_mode"), render_modes)
    if render_wrapper is not None:
        env_kwargs["render_mode"] = built_mode

    env = _instantiate(env_spec, env_creator, env_kwargs, render_wrapper)
    # The wrappers added below extend this bare spec through their own ``spec`` properties.
    env.unwrapped.spec = dataclasses.replace(
        env_spec,
        max_episode_steps=None,
        order_enforce=False,
        disable_env_checker=True,
        kwargs=env_kwargs,
        additional_wrappers=(),
    )
    prior_wrappers = _check_prior_wrappers(env_spec, env)
    return _wrap(
        env, env_spec, max_episode_steps, disable_env_checker, prior_wrappers, render_wrapper
    )


def _wrap(
    env: Env,
    env_spec: EnvSpec,
    max_episode_steps: int | None,
    disable_env_checker: bool | None,
    prior_wrappers: int,
    render_wrapper: str | None,
) -> Env:
    from palaestra.wrappers.common import OrderEnforcing, PassiveEnvChecker, TimeLimit

    if disable_env_checker is None:
        disable_env_checker = env_spec.disable_env_checker
    if disable_env_checker is False:
        env = PassiveEnvChecker(env)
    if env_spec.order_enforce:
        env = OrderEnforcing(env)
    if max_episode_steps is None:
        max_episode_steps = env_spec.max_episode_steps
    if max_episode_steps is not None and max_episode_steps != -1:
        env = TimeLimit(env, max_episode_steps)
    for wrapper_spec in env_spec.additional_wrappers[prior_wrappers:]:
        env = _apply_wrapper_spec(env, wrapper_spec)
    if render_wrapper is not None:
        from palaestra.wrappers import rendering

        env = getattr(rendering, render_wrapper)(env)
    return env


# ---------------------------------------------------------------------------------------------
# make_vec


def _vectorize_mode(mode: VectorizeMode | str | None, env_spec: EnvSpec) -> VectorizeMode:
    if mode is None:
        if env_spec.vector_entry_point is not None:
            return VectorizeMode.VECTOR_ENTRY_POINT
        return VectorizeMode.SYNC
    try:
        return VectorizeMode(mode)
    except ValueError as e:
        raise ValueError(
            f"Invalid vectorization mode: {mode!r}, valid modes: {[m.value for m in VectorizeMode]}"
        ) from e


def _make_native_vector_env(
    id: str | EnvSpec,
    env_spec: EnvSpec,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    if vector_kwargs:
        raise error.Error(
            "Custom vector environment can be passed arguments only through kwargs and "
            f"`vector_kwargs` is not empty ({vector_kwargs})"
        )
    if wrappers:
        raise error.Error(
            "Cannot use `vector_entry_point` vectorization mode with the wrappers argument "
            f"({wrappers})."
        )
    if env_spec.additional_wrappers:
        raise error.Error(
            "Cannot use `vector_entry_point` vectorization mode with the additional_wrappers "
            f"parameter in spec being not empty ({env_spec.additional_wrappers})."
        )
    if env_spec.vector_entry_point is None:
        raise error.Error(
            f"Cannot create vectorized environment for {id} because it doesn't have a vector "
            "entry point defined."
        )
    env_creator = _resolve_creator(env_spec.vector_entry_point)
    if env_spec.max_episode_steps is not None and "max_episode_steps" not in env_kwargs:
        env_kwargs["max_episode_steps"] = env_spec.max_episode_steps
    return env_creator(num_envs=num_envs, **env_kwargs)


def _check_autoreset_metadata(envs: VectorEnv) -> None:
    from palaestra.vector import AutoresetMode

    if "autoreset_mode" not in envs.metadata:
        logger.warn(
            f"The VectorEnv ({envs}) is missing AutoresetMode metadata, metadata={envs.metadata}"
        )
    elif not isinstance(envs.metadata["autoreset_mode"], AutoresetMode):
        logger.warn(
            f"The VectorEnv ({envs}) metadata['autoreset_mode'] is not an instance of "
            f"AutoresetMode, {type(envs.metadata['autoreset_mode'])}."
        )


def make_vec(
    id: str | EnvSpec,
    num_envs: int = 1,
    vectorization_mode: VectorizeMode | str | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Sequence[Callable[[Env], Wrapper]] | None = None,
    **kwargs: Any,
) -> VectorEnv:
    """Build a vector environment running ``num_envs`` copies of a registered environment.

    A spec whose ``kwargs`` hold ``num_envs``, ``vectorization_mode``, ``vector_kwargs`` or
    ``wrappers`` (as ``envs.spec`` of a vector env does) supplies those instead of the
    arguments, so ``make_vec(envs.spec)`` rebuilds ``envs``.

    Args:
        id: an id (optionally ``"module:Id"``) or an :class:`EnvSpec`.
        num_envs: how many copies.
        vectorization_mode: ``"sync"`` (:class:`~palaestra.vector.SyncVectorEnv`),
            ``"async"`` (:class:`~palaestra.vector.AsyncVectorEnv`),
            ``"vector_entry_point"`` (the spec's native vector env) or ``"pool"`` (a
            :class:`~palaestra.vector.PoolVectorEnv` of worker processes), as strings or
            :class:`VectorizeMode`. ``None`` picks the vector entry point if the spec has one,
            else sync.
        vector_kwargs: arguments for the vector env class (not for ``"vector_entry_point"``).
        wrappers: callables applied in order to each sub-environment (not for
            ``"vector_entry_point"``).
        kwargs: constructor arguments for each environment.

    Returns:
        The vector env; its ``spec.kwargs`` record the arguments needed to rebuild it.

    Raises:
        ValueError: unknown ``vectorization_mode`` (the message lists the valid ones).
        palaestra.error.Error: ``id`` has the wrong type or is unknown; the chosen mode needs
            an entry point the spec lacks; or ``vector_entry_point`` mode got
            ``vector_kwargs``, ``wrappers`` or a spec with ``additional_wrappers``.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs.spec.kwargs
        {'num_envs': 2, 'vectorization_mode': 'sync'}
        >>> envs.close()
    """
    if isinstance(id, EnvSpec):
        env_spec = id
    elif isinstance(id, str):
        env_spec = _find_spec(id)
    else:
        raise error.Error(f"Invalid id type: {type(id)}. Expected `str` or `EnvSpec`")

    # Sub-envs are built from a spec without kwargs, the kwargs being passed to ``make``.
    env_spec = copy.deepcopy(env_spec)
    env_kwargs, env_spec.kwargs = env_spec.kwargs, {}
    num_envs = env_kwargs.pop("num_envs", num_envs)
    vectorization_mode = env_kwargs.pop("vectorization_mode", vectorization_mode)
    vector_kwargs = env_kwargs.pop("vector_kwargs", vector_kwargs) or {}
    wrappers = env_kwargs.pop("wrappers", wrappers) or []
    env_kwargs.update(kwargs)
    mode = _vectorize_mode(vectorization_mode, env_spec)

    if mode is VectorizeMode.VECTOR_ENTRY_POINT:
        envs = _make_native_vector_env(id, env_spec, num_envs, vector_kwargs, wrappers, env_kwargs)
    elif mode is VectorizeMode.POOL:
        from palaestra.vector.pool._from_spec import make_pool_vector_env

        envs = make_pool_vector_env(env_spec, num_envs, vector_kwargs, wrappers, env_kwargs)
    else:
        envs = _make_python_vector_env(
            env_spec, mode, num_envs, vector_kwargs, wrappers, env_kwargs
        )

    envs.unwrapped.spec = _vector_spec(
        env_spec, env_kwargs, num_envs, mode, vector_kwargs, wrappers
    )
    _check_autoreset_metadata(envs)
    return envs


def _make_python_vector_env(
    env_spec: EnvSpec,
    mode: VectorizeMode,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    from palaestra.vector import AsyncVectorEnv, SyncVectorEnv

    if env_spec.entry_point is None:
        raise error.Error(
            f"Cannot create vectorized environment for {env_spec.id} because it doesn't have "
            "an entry point defined."
        )

    def make_sub_env() -> Env:
        sub_env = make(env_spec, **env_kwargs.copy())
        for wrapper in wrappers:
            sub_env = wrapper(sub_env)
        return sub_env

    vector_class = SyncVectorEnv if mode is VectorizeMode.SYNC else AsyncVectorEnv
    return vector_class(env_fns=[make_sub_env] * num_envs, **vector_kwargs)


def _vector_spec(
    env_spec: EnvSpec,
    env_kwargs: dict[str, Any],
    num_envs: int,
    mode: VectorizeMode,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
) -> EnvSpec:
    """Return the spec from which ``make_vec`` rebuilds this vector env (defaults left out)."""
    vector_spec = copy.deepcopy(env_spec)
    vector_spec.kwargs = env_kwargs.copy()
    if num_envs != 1:
        vector_spec.kwargs["num_envs"] = num_envs
    vector_spec.kwargs["vectorization_mode"] = mode.value
    if vector_kwargs:
        vector_spec.kwargs["vector_kwargs"] = vector_kwargs
    if wrappers:
        vector_spec.kwargs["wrappers"] = wrappers
    return vector_spec


# ---------------------------------------------------------------------------------------------
# Printing the registry


def _display_namespace(env_spec: EnvSpec) -> str | None:
    """Return the id's namespace, else a package guessed from a string entry point.

    Without either (a callable entry point), envs are grouped under ``None``; with a string
    entry point too short to name a package, under their own name.

    ``"palaestra.envs.classic_control.cartpole:CartPoleEnv"`` gives ``classic_control``;
    ``"plugin.module:Env"`` gives ``module``.
    """
    if env_spec.namespace is not None or not isinstance(env_spec.entry_point, str):
        return env_spec.namespace
    module_path = re.sub(r":\w+", "", env_spec.entry_point).split(".")
    if len(module_path) >= 3:
        return module_path[2]
    if len(module_path) == 2:
        return module_path[1]
    return env_spec.name


def _namespace_block(ns: str | None, env_ids: list[str], width: int, num_cols: int) -> str:
    rows = []
    ordered = sorted(env_ids)
    for start in range(0, len(ordered), num_cols):
        row = ordered[start : start + num_cols]
        rows.append(" ".join(env_id.ljust(width) for env_id in row).rstrip(" "))
    return f"{'=' * 5} {ns} {'=' * 5}\n" + "\n".join(rows)


def pprint_registry(
    print_registry: dict[str, EnvSpec] = registry,
    *,
    num_cols: int = 3,
    exclude_namespaces: list[str] | None = None,
    disable_print: bool = False,
) -> str | None:
    """Print the registered ids grouped by namespace, ``num_cols`` per row.

    Args:
        print_registry: the specs to print (the global registry by default).
        num_cols: ids per row.
        exclude_namespaces: namespaces to leave out.
        disable_print: return the text instead of printing it.

    Returns:
        The text when ``disable_print`` is true, else ``None``.

    Example:
        >>> specs = {i: EnvSpec(i, "game.snake:Snake") for i in ("Snake-v0", "Snake-v1")}
        >>> pprint_registry(specs, num_cols=1)
        ===== snake =====
        Snake-v0
        Snake-v1
    """
    grouped: dict[str | None, list[str]] = defaultdict(list)
    for env_spec in print_registry.values():
        grouped[_display_namespace(env_spec)].append(env_spec.id)
    width = max((len(s.name) for s in print_registry.values()), default=0)
    excluded = exclude_namespaces or []
    text = "\n".join(
        _namespace_block(ns, env_ids, width, num_cols)
        for ns, env_ids in grouped.items()
        if ns not in excluded
    )
    if disable_print:
        return text
    print(text)
    return None
