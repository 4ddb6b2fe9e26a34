"""A direct channel between the parent and an actor on the parent's own Ray node.

A Ray actor call costs a task submission, a scheduling round through the core workers and an
object transfer: about a millisecond per call on a small, busy machine, more than many steps.
For an actor on the parent's node the ray mode talks over a Unix socket instead: the actor
listens in a private directory (mode ``0700``), the parent connects and first sends a random
token the actor got through Ray, and from then on each command is one length-prefixed pickle
each way, and waiting for a reply is a ``select`` (the process sleeps; nothing spins, unlike
Ray Compiled Graphs' shared-memory channels, which poll and so take a whole core from the
sub-environments on a two-core machine).

A dead actor closes its end (the parent reads end-of-file), a hung one simply does not answer
within the parent's timeout; both are then handled as for Ray calls.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import pickle
import shutil
import socket
import struct
import tempfile
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["ChannelClosed", "Pending", "connect", "dumps", "receive", "send", "serve"]

_HEADER = struct.Struct("!Q")
ACCEPT_SECONDS = 60.0


class ChannelClosed(ConnectionError):
    """The other end of a channel closed it (its process ended or dropped the connection)."""


class Pending:
    """A command sent over a channel whose reply has not been handed out yet.

    Args:
        connection: the parent's socket to the actor.

    Example:
        >>> left, right = socket.socketpair()
        >>> send(right, ("done", True))
        >>> pending = Pending(left)
        >>> pending.take()
        ('done', True)
        >>> left.close(); right.close()
    """

    __slots__ = ("connection", "received", "reply")

    def __init__(self, connection: socket.socket):
        self.connection = connection
        self.reply: Any = None
        self.received = False

    def fileno(self) -> int:
        """Return the socket's file descriptor (for ``select``)."""
        return self.connection.fileno()

    def take(self) -> Any:
        """Return the reply, reading it from the socket the first time.

        Raises:
            ChannelClosed: if the actor closed the connection instead of replying.
            TimeoutError: if the reply does not arrive within the socket's timeout.
        """
        if not self.received:
            self.reply = receive(self.connection)
            self.received = True
        return self.reply


def dumps(value: Any) -> bytes:
    """Pickle ``value``, by value (cloudpickle) when plain pickle cannot.

    Example:
        >>> pickle.loads(dumps(lambda x: x + 1))(1)
        2
    """
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError):
        from ray import cloudpickle

        return cloudpickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def send(connection: socket.socket, value: Any) -> None:
    """Send ``value`` as one length-prefixed pickle.

    Example:
        >>> left, right = socket.socketpair()
        >>> send(left, [1, 2])
        >>> receive(right)
        [1, 2]
        >>> left.close(); right.close()
    """
    payload = dumps(value)
    connection.sendall(_HEADER.pack(len(payload)) + payload)


def _read_exactly(connection: socket.socket, size: int) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        try:
            count = connection.recv_into(view[got:])
        except ConnectionResetError as error:
            raise ChannelClosed("the other end closed the channel (reset)") from error
        if count == 0:
            raise ChannelClosed("the other end closed the channel")
        got += count
    return buffer


def receive(connection: socket.socket) -> Any:
    """Read one value sent by :func:`send`.

    Raises:
        ChannelClosed: if the other end closed the connection.
        TimeoutError: if nothing complete arrives within the socket's timeout.
    """
    (size,) = _HEADER.unpack(_read_exactly(connection, _HEADER.size))
    return pickle.loads(_read_exactly(connection, size))


def serve(token: bytes, run: Callable[[str, Any], Any]) -> str:
    """Listen for the parent on a fresh Unix socket and serve ``run`` in a daemon thread.

    The thread accepts one connection (within :data:`ACCEPT_SECONDS`), checks that its
    first message is ``token`` (anything else closes it unread), then answers every
    ``(command, data)`` with ``run(command, data)`` until the parent disconnects.

    Args:
        token: the secret the parent must send first.
        run: answers one command (the actor's :meth:`GroupHost.run`).

    Returns:
        The socket's path, for :func:`connect`.

    Example:
        >>> path = serve(b"secret", lambda command, data: (command, data))
        >>> connection = connect(path, b"secret", timeout=5.0)
        >>> send(connection, ("step", 3))
        >>> receive(connection)
        ('step', 3)
        >>> connection.close()
    """
    directory = tempfile.mkdtemp(prefix="palaestra-ray-")  # mode 0700: this user only
    path = os.path.join(directory, "channel")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)
    server.settimeout(ACCEPT_SECONDS)
    thread = threading.Thread(
        target=_serve, args=(server, directory, token, run), name="palaestra-channel", daemon=True
    )
    thread.start()
    return path


def _serve(
    server: socket.socket, directory: str, token: bytes, run: Callable[[str, Any], Any]
) -> None:
    try:
        connection, _ = server.accept()
    except OSError:  # nobody connected in time
        return
    finally:
        server.close()
        shutil.rmtree(directory, ignore_errors=True)
    with connection:
        connection.settimeout(ACCEPT_SECONDS)
        header = connection.recv(len(token), socket.MSG_WAITALL)
        if not hmac.compare_digest(header, token):
            return
        connection.settimeout(None)
        with contextlib.suppress(ChannelClosed, OSError):
            while True:
                command, data = receive(connection)
                send(connection, run(command, data))


def connect(path: str, token: bytes, timeout: float) -> socket.socket:
    """Connect to an actor's :func:`serve` socket and present ``token``.

    Args:
        path: what :func:`serve` returned.
        token: the actor's secret.
        timeout: seconds a later :func:`receive` may block once ``select`` said it is ready.

    Raises:
        OSError: if the socket cannot be reached (another machine, or the actor ended).
    """
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        connection.connect(path)
        connection.sendall(token)
    except BaseException:
        connection.close()
        raise
    return connection
