"""The project's own fake Discord: REST v10 + JSON gateway on loopback for discord.py 2.7.

See ``server.FakeDiscord`` for the test-facing API and ``process.BotProcess`` to
run a bot (ours or a tiny test bot) as a real separate process against it.
"""

from ._model import Attachment, Button, FakeChannel, FakeMessage, FakeUser
from .dblock import WriteLock
from .process import BotProcess
from .server import CommandMismatch, FakeDiscord, FakeInteraction, Fault, ProtocolTimeout

__all__ = [
    "Attachment",
    "BotProcess",
    "Button",
    "CommandMismatch",
    "FakeChannel",
    "FakeDiscord",
    "FakeInteraction",
    "FakeMessage",
    "FakeUser",
    "Fault",
    "ProtocolTimeout",
    "WriteLock",
]
