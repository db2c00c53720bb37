"""Python client of the Runbox agent (standard library only).

    from runbox import Agent
    with Agent() as agent, agent.workspace() as ws:
        print(ws.run("echo hi", check=True).text)

See clients/python/README.md; the HTTP contract is docs/contracts.md.
"""

from .agent import Agent, DEFAULT_URL, default_state_dir
from .errors import (AuthenticationError, CertificateRefusedError, CommandError, ConflictError,
                     ConnectionLostError, FleetFileError, FleetTokenError, InvalidRequestError, NoPoolHostsError,
                     NotFoundError, PermissionDeniedError, PoolCancelledError, PoolCreateRefusedError,
                     PoolDeleteError, PoolError, PoolFullError, ProtocolError, RunboxError, ServerError, TooLargeError,
                     UnavailableError)
from .execution import FINAL_STATES, Execution, LogChunk, Result
from .files import FileEntry, Files
from .fleet import Fleet, FleetAgent, FleetSsh
from .pool import Placement, Pool, PooledWorkspace, PoolHost
from .workspace import ProxyToken, Usage, Workspace

__version__ = "0.1.0"

__all__ = [
    "Agent", "DEFAULT_URL", "default_state_dir", "Workspace", "ProxyToken", "Usage", "Files", "FileEntry", "Execution",
    "LogChunk", "Result", "FINAL_STATES", "RunboxError", "InvalidRequestError",
    "AuthenticationError", "PermissionDeniedError", "NotFoundError", "ConflictError",
    "TooLargeError", "UnavailableError", "ServerError", "ConnectionLostError", "ProtocolError",
    "CommandError", "CertificateRefusedError", "Fleet", "FleetAgent", "FleetSsh", "Pool", "PoolHost", "PooledWorkspace",
    "Placement", "FleetFileError", "FleetTokenError", "PoolError", "NoPoolHostsError", "PoolFullError",
    "PoolCreateRefusedError", "PoolCancelledError", "PoolDeleteError",
]
