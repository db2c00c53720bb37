"""The fleet file (docs/contracts.md "Fleet file"): the one place where the console, the CLI and
the Python client list agents, read with the rules of ``shared/FleetFile``::

    {"agents": [{"name": "h1", "url": "http://10.0.0.5:4311", "tokenFile": "tokens/h1.token"},
                {"name": "gpu-2", "url": "https://gpu2:4312", "keychain": "runbox/gpu-2",
                 "fingerprint": "sha256:…"},
                {"name": "node3", "ssh": {"host": "node3", "user": "ops"}, "keychain": "…"}]}

An entry has a ``url`` or, for an agent the console reaches through the operator's ssh, an
``ssh`` object (``host``, ``user``, ``port``, ``remote``); this client does not run ssh, so such
an agent's :meth:`FleetAgent.read_token` says so and a pool never uses it.

A token is referenced, never stored: exactly one of ``tokenFile`` (relative to the fleet file's
directory; refused when readable by group or others) and ``keychain`` (only the console reads
keychain entries: this client refuses them, as the CLI does). A ``"token"`` member, an unknown
member, a bad or duplicate name, a URL that is not http(s), a fingerprint that is not one or one
for an ``http://`` URL make the whole file an error (:class:`~runbox.FleetFileError`).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Union
from urllib.parse import urlsplit

from . import _tls
from .errors import FleetFileError, FleetTokenError

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
# What a token file may hold: an agent token or a workspace token (docs/contracts.md "Tokens").
_TOKEN = re.compile(r"[0-9a-f]{64}|ws1\.[A-Za-z0-9][A-Za-z0-9_-]*\.[0-9a-f]{32}\.[0-9a-f]{64}")
_MEMBERS = ("name", "url", "ssh", "tokenFile", "keychain", "fingerprint", "pool")
_SSH_MEMBERS = ("host", "user", "port", "remote")
_SSH_UNSAFE = re.compile(r"[\s\x00-\x1f]")
_HOST_PORT = re.compile(r"[^\s/:-][^\s/]*:[0-9]{1,5}")


def valid_name(name: str) -> bool:
    """Whether ``name`` can be a fleet agent's name: 1-64 of ``A-Z a-z 0-9 _ -`` (no ``.``,
    which separates pooled ids)."""
    return bool(_NAME.fullmatch(name))


def default_path() -> str:
    """``$XDG_CONFIG_HOME/runbox/fleet.json``, else ``~/.config/runbox/fleet.json``."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return os.path.join(base, "runbox", "fleet.json")


@dataclass(frozen=True)
class FleetSsh:
    """How the console reaches an agent through ssh: ``ssh -N -L 127.0.0.1:LOCAL:REMOTE
    [-l user] [-p port] -- host`` (``port`` 0 and empty ``user``/``remote``: ssh's and the
    agent's defaults)."""

    host: str
    user: str = ""
    port: int = 0
    remote: str = ""


@dataclass(frozen=True)
class FleetAgent:
    """One agent of a fleet file. ``token_file`` is absolute (resolved against the fleet
    file's directory) or None when the token is a ``keychain`` entry; ``pin`` is the 32 bytes
    ``fingerprint`` names (None without one); ``url`` is empty and ``ssh`` set for an agent
    reached through ssh."""

    name: str
    url: str
    token_file: Optional[str] = None
    keychain: Optional[str] = None
    fingerprint: Optional[str] = None
    pin: Optional[bytes] = None
    ssh: Optional[FleetSsh] = None
    pool: Optional[str] = None  # the token derived from this pool's secret (docs/contracts.md "Pool credential")

    def read_token(self) -> str:
        """The agent token (trimmed). FleetTokenError for a keychain entry (only the console
        reads them), or a token file that is missing, empty, unreadable, or readable by group
        or others (as the agent refuses its own: chmod 600 it). For a ``"pool"`` entry, the
        token derived from that pool's secret and the host nonce on its ``/health``
        (:func:`runbox.pool_secret.derive_host_token`; the secret read and checked first). For an
        ``ssh`` entry, FleetTokenError: this client does not run ssh."""
        if self.ssh is not None:
            raise FleetTokenError(self.name, f"agent {self.name} is reached through ssh (the console's "
                                  "SSH tunnel), which this client does not run: open one and use its "
                                  "local end as the url")
        if self.pool is not None:
            from . import pool_secret
            secret = pool_secret.read_secret(pool_secret.default_secret_path(self.pool), self.name)
            return pool_secret.derive_host_token(self.url, secret, self.pin, agent=self.name)
        if self.keychain is not None:
            raise FleetTokenError(self.name, f"agent {self.name}: its token is in the keychain entry "
                                  f"\"{self.keychain}\", which only the console reads; give it a tokenFile")
        assert self.token_file is not None
        secrets_dir = os.path.realpath(os.path.join(os.path.dirname(default_path()), "pools"))
        if os.path.realpath(self.token_file).startswith(secrets_dir + os.sep):
            raise FleetTokenError(self.name, f"agent {self.name}: token file {self.token_file} is a pool's "
                                  "secret, which is never sent (give the pool entry \"pool\" instead)")
        from .pool_secret import read_private
        try:
            token = read_private(self.token_file, "token file", self.name,
                                 root_reads_any=True).strip().decode("utf-8")
        except FleetTokenError as e:
            raise FleetTokenError(self.name, f"agent {self.name}: {e.message}") from None
        except UnicodeDecodeError:
            token = ""
        if token and not _TOKEN.fullmatch(token):
            raise FleetTokenError(self.name, f"agent {self.name}: token file {self.token_file} does not hold an "
                                  "agent token (64 hex characters) or a workspace token (ws1.…); it is not sent")
        if not token:
            raise FleetTokenError(self.name, f"agent {self.name}: token file {self.token_file} is empty or unreadable")
        return token


class Fleet:
    """The agents of a fleet file, in the file's order (the pool's placement order)."""

    def __init__(self, agents: List[FleetAgent], path: str) -> None:
        self.agents: List[FleetAgent] = list(agents)
        self.path = path

    default_path = staticmethod(default_path)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]", None] = None) -> "Fleet":
        """Reads and checks the fleet file at ``path`` (default :func:`default_path`).
        FleetFileError naming the file and the entry when it cannot be used."""
        where = str(path) if path is not None else default_path()
        try:
            data = Path(where).read_bytes()
        except OSError as e:
            raise FleetFileError(where, f"cannot read the fleet file {where}: {e.strerror or e}") from None
        return cls.parse(data, where)

    @classmethod
    def parse(cls, data: Union[str, bytes], path: str) -> "Fleet":
        """Parses ``data`` as a fleet file found at ``path`` (relative token files resolve
        against its directory). The errors of :meth:`load`."""
        try:
            doc: Any = json.loads(data)
        except (UnicodeDecodeError, ValueError) as e:
            raise FleetFileError(path, f"fleet file {path} is not a JSON object: {e}") from None
        if not isinstance(doc, dict):
            raise FleetFileError(path, f"fleet file {path} is not a JSON object")
        for key in doc:
            if key != "agents":
                raise FleetFileError(path, f"fleet file {path}: unknown member \"{key}\"")
        if not isinstance(doc.get("agents"), list):
            raise FleetFileError(path, f"fleet file {path}: \"agents\" must be an array")
        base = os.path.dirname(os.path.abspath(path))
        agents: List[FleetAgent] = []
        for i, entry in enumerate(doc["agents"]):
            agents.append(_agent(entry, f"fleet file {path}, agent {i + 1}", base, agents, path))
        return cls(agents, path)

    def find(self, name: str) -> Optional[FleetAgent]:
        """The agent named ``name``, or None."""
        for agent in self.agents:
            if agent.name == name:
                return agent
        return None

    def __getitem__(self, name: str) -> FleetAgent:
        agent = self.find(name)
        if agent is None:
            raise KeyError(name)
        return agent

    def __iter__(self) -> Iterator[FleetAgent]:
        return iter(self.agents)

    def __len__(self) -> int:
        return len(self.agents)

    def __repr__(self) -> str:
        return f"Fleet({self.path!r}, {[a.name for a in self.agents]!r})"


def _agent(entry: Any, where: str, base: str, earlier: List[FleetAgent], path: str) -> FleetAgent:
    """One entry, checked in ``FleetFile::parse``'s order."""

    def fail(why: str) -> FleetFileError:
        return FleetFileError(path, f"{where}: {why}")

    if not isinstance(entry, dict):
        raise fail("not an object")
    if "token" in entry:
        raise fail("a token is never stored in the fleet file; name a 0600 \"tokenFile\" or a \"keychain\" entry")
    for key, value in entry.items():
        if key not in _MEMBERS:
            raise fail(f"unknown member \"{key}\"")
        if key != "ssh" and not isinstance(value, str):
            raise fail(f"\"{key}\" must be a string")
    fields: Dict[str, str] = {k: entry.get(k, "") for k in _MEMBERS if k != "ssh"}
    name, url = fields["name"], fields["url"]
    if not valid_name(name):
        raise fail(f"name \"{name}\" must be 1-64 of A-Z a-z 0-9 _ -")
    if any(a.name == name for a in earlier):
        raise fail(f"name \"{name}\" is listed twice")
    if ("ssh" in entry) == ("url" in entry):
        raise fail("give one of \"url\" and \"ssh\"")
    ssh: Optional[FleetSsh] = None
    scheme = ""
    if "ssh" in entry:
        ssh = _ssh(entry["ssh"], fail)
    else:
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a port that is not one
            ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:
            ok = False
        if not ok:
            raise fail(f"url \"{url}\" is not http(s)://HOST:PORT")
        scheme = parts.scheme
    pin: Optional[bytes] = None
    if fields["fingerprint"]:
        pin = _tls.parse_fingerprint(fields["fingerprint"])
        if pin is None:
            raise fail(f"fingerprint \"{fields['fingerprint'][:200]}\" is not a SHA-256 fingerprint "
                       "(AB:CD:… as runbox-agent --print-fingerprint prints it)")
        if scheme != "https":
            raise fail("a fingerprint pins a TLS certificate: the url must be https://")
    given = [k for k in ("tokenFile", "keychain", "pool") if fields[k]]
    if len(given) != 1:
        raise fail("give one of \"tokenFile\" and \"keychain\"" if not given or "pool" not in given
                   else "give one of \"tokenFile\", \"keychain\" and \"pool\"")
    if fields["pool"] and not valid_name(fields["pool"]):
        raise fail(f"pool \"{fields['pool']}\" must be 1-64 of A-Z a-z 0-9 _ -")
    if fields["pool"] and ssh is not None:
        raise fail("a pool entry is reached by its url: give \"url\", not \"ssh\"")
    token_file = os.path.normpath(os.path.join(base, fields["tokenFile"])) if fields["tokenFile"] else None
    return FleetAgent(name=name, url=url, token_file=token_file, keychain=fields["keychain"] or None,
                      fingerprint=fields["fingerprint"] or None, pin=pin, ssh=ssh, pool=fields["pool"] or None)


def _ssh(value: Any, fail: Callable[[str], FleetFileError]) -> FleetSsh:
    """An entry's ``ssh`` object, checked as ``FleetFile``'s ``parseSsh``: its fields go to
    ssh's command line, so none may read as an option."""
    if not isinstance(value, dict):
        raise fail("\"ssh\" must be an object {\"host\",\"user\",\"port\",\"remote\"}")
    for key, member in value.items():
        if key not in _SSH_MEMBERS:
            raise fail(f"unknown member \"ssh.{key}\"")
        number = key == "port"
        if (number and (isinstance(member, bool) or not isinstance(member, (int, float)))) or \
                (not number and not isinstance(member, str)):
            raise fail(f"\"ssh.{key}\" must be a {'number' if number else 'string'}")
    host, user, remote = value.get("host", ""), value.get("user", ""), value.get("remote", "")
    if not host or host.startswith("-") or _SSH_UNSAFE.search(host):
        raise fail("\"ssh.host\" must be a host name or address (not an option)")
    if user.startswith("-") or _SSH_UNSAFE.search(user):
        raise fail("\"ssh.user\" must be a user name (not an option)")
    port = value.get("port", 0)
    if "port" in value and (port != int(port) or not 1 <= port <= 65535):
        raise fail("\"ssh.port\" must be 1-65535")
    if remote and not remote.startswith("/") and not _HOST_PORT.fullmatch(remote):
        raise fail("\"ssh.remote\" must be an absolute unix socket path or host:port")
    if re.search(r"[\x00-\x1f]", remote):
        raise fail("\"ssh.remote\" must not hold control characters")
    return FleetSsh(host=host, user=user, port=int(port), remote=remote)


__all__ = ["Fleet", "FleetAgent", "FleetSsh", "default_path", "valid_name"]
