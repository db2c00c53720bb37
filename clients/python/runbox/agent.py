"""``Agent``: the connection to one runbox-agent, found as the CLI finds it."""

from __future__ import annotations

import os
import ssl
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Tuple, TypeVar
from urllib.parse import urlsplit

from . import _parse, _tls
from ._http import Client, Session
from .errors import NotFoundError, ProtocolError, RunboxError, UnavailableError
from .workspace import Workspace

DEFAULT_URL = "http://127.0.0.1:4311"
T = TypeVar("T")


def default_state_dir() -> str:
    """``RUNBOX_STATE_DIR``, else ``/var/lib/runbox`` as root, else ``~/.local/state/runbox``
    (the agent's and the CLI's default, docs/contracts.md "Processes and start-up")."""
    env = os.environ.get("RUNBOX_STATE_DIR")
    if env:
        return env
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return "/var/lib/runbox"
    return str(Path.home() / ".local/state/runbox")


def _read_trimmed(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def resolve(url: Optional[str], token: Optional[str], state_dir: Optional[str]) -> Tuple[str, str]:
    """URL and token in the CLI's order (``cli/CliOptions.cpp``): the argument, then
    ``RUNBOX_URL``/``RUNBOX_TOKEN``, then ``<state dir>/agent.url``/``agent.token``, and for the
    URL finally ``http://127.0.0.1:4311``."""
    directory = Path(state_dir or default_state_dir())
    url = url or os.environ.get("RUNBOX_URL") or _read_trimmed(directory / "agent.url") or DEFAULT_URL
    token = token or os.environ.get("RUNBOX_TOKEN") or _read_trimmed(directory / "agent.token")
    if not token:
        raise RunboxError(None, "no_token", "no token: give token=, RUNBOX_TOKEN or a state_dir whose "
                          f"agent.token is readable (looked in {directory})")
    return url, token


def resolve_pin(fingerprint: Optional[str], url: str) -> Optional[bytes]:
    """The pin of an https:// agent as the CLI takes it (``cli/CliOptions.cpp``): the argument,
    else ``RUNBOX_FINGERPRINT`` (there is no state-directory file for it), in any form
    ``runbox-agent --print-fingerprint`` or openssl prints, else the fleet file's pin for that
    agent; None when none is set.
    ValueError for text that is not a SHA-256 fingerprint, or a pin with an http:// URL."""
    text = fingerprint or os.environ.get("RUNBOX_FINGERPRINT") or ""
    if not text:
        return _fleet_pin(url)
    pin = _tls.parse_fingerprint(text)
    if pin is None:
        raise ValueError(f"fingerprint {text[:200]!r} is not a SHA-256 fingerprint (AB:CD:… as "
                         "runbox-agent --print-fingerprint prints it, or sha256:<64 hex>)")
    if urlsplit(url).scheme != "https":
        raise ValueError("fingerprint (RUNBOX_FINGERPRINT) pins a TLS certificate: the agent URL "
                         f"must be https://, not {url}")
    return pin


def _fleet_pin(url: str) -> Optional[bytes]:
    """The pin the fleet file (``runbox.fleet.default_path()``) keeps for the https:// agent at
    ``url`` (same scheme, host and port), as the CLI takes it for ``--url`` without
    ``--fingerprint``; None without a fleet file, a matching agent or a pin. A fleet file that
    cannot be read is said with a warning."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        return None
    from . import fleet as _fleet  # the fleet module is optional to the common path
    if not os.path.exists(_fleet.default_path()):
        return None
    try:
        agents = _fleet.Fleet.load().agents
    except RunboxError as e:
        warnings.warn(f"the fleet file is not read for a pin: {e}", stacklevel=3)
        return None
    for agent in agents:
        listed = urlsplit(agent.url)
        if (listed.scheme, (listed.hostname or "").lower(), listed.port or 443) == \
                (parts.scheme, (parts.hostname or "").lower(), parts.port or 443):
            return agent.pin
    return None


class _hybridmethod(Generic[T]):
    """A method that works on the class (``Agent.connect_workspace(id, token, url=…)``) and on
    an instance (``agent.connect_workspace(id, token)``, over that agent's connections)."""

    def __init__(self, func: Callable[..., T]) -> None:
        self.func = func
        self.__doc__ = func.__doc__

    def __get__(self, obj: Any, cls: Any) -> Callable[..., T]:
        def bound(*args: Any, **kwargs: Any) -> T:
            return self.func(cls, obj, *args, **kwargs)

        bound.__doc__ = self.func.__doc__
        return bound


class Agent:
    """A runbox-agent. ``url``/``token`` default as for the CLI (see :func:`resolve`). An
    ``https://`` agent (its TLS listener, ``--listen-tls``) is accepted by its pinned
    ``fingerprint`` (``runbox-agent --print-fingerprint``; else ``RUNBOX_FINGERPRINT``), checked
    on every new connection before anything is sent, or unpinned only when the system CA store
    verifies it; a refused certificate raises CertificateRefusedError (docs/contracts.md "TLS
    and pinning"). ``timeout_s`` bounds each socket read (streams carry a ping every 15 s, so long runs are
    fine). Connections are kept alive and shared by the workspaces made from it. As a context
    manager, closes them on exit."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, state_dir: Optional[str] = None,
                 *, fingerprint: Optional[str] = None, timeout_s: float = 60.0,
                 ssl_context: Optional[ssl.SSLContext] = None) -> None:
        url, token = resolve(url, token, state_dir)
        self.url = url.rstrip("/")
        self._session = Session(url, timeout_s, ssl_context, resolve_pin(fingerprint, url))
        self._client = Client(self._session, token)

    def __repr__(self) -> str:
        return f"Agent({self.url!r})"

    @classmethod
    def from_pool_secret(cls, url: str, pool: str, *, secret_file: Optional[str] = None,
                         fingerprint: Optional[str] = None, timeout_s: float = 60.0) -> "Agent":
        """The pool host at ``url`` signed with its agent token, derived from ``pool``'s secret
        (``secret_file``, default ``~/.config/runbox/pools/POOL.secret``, 0600) and the host
        nonce on its ``/health`` (docs/contracts.md "Pool credential"): no other local state.
        The secret is read and checked before anything is sent, and never sent. FleetTokenError
        when it is refused or the host shows no nonce."""
        from . import pool_secret
        pin = resolve_pin(fingerprint, url)
        secret = pool_secret.read_secret(secret_file or pool_secret.default_secret_path(pool))
        token = pool_secret.derive_host_token(url, secret, pin)
        return cls(url, token, fingerprint=fingerprint, timeout_s=timeout_s)

    def health(self) -> Dict[str, Any]:
        """``GET /v1/health``: the sandbox conclusion, limits, tiers (docs/contracts.md)."""
        return self._client.request("GET", "/v1/health").json_object()  # type: ignore[union-attr]

    def workspace(self, isolation: str = "strong", env: Optional[Mapping[str, str]] = None,
                  **options: Any) -> Workspace:
        """Creates one workspace (``POST /v1/workspaces``; agent token only) and returns it,
        signed with its scoped token. ``isolation`` ``"strong"`` (a fresh bubblewrap sandbox
        per run) or ``"light"`` (a root agent's lighter tier, docs/light-workspaces.md).
        ``env``: for light workspaces sent to the agent (the workspace's environment); for
        strong ones kept by this handle and merged into every run. ``options``: further light
        create fields in snake or camel case (``idle_timeout_s``, ``allowed_connect_ports``,
        ``allow_udp``, ``max_procs``, ``environment_id`` or ``environment_revision_id``: the
        science environment its runs see at /opt/science-env, docs/environments.md "Light
        workspaces"…). Used as a context manager, it is deleted on exit."""
        return self.workspaces(1, isolation=isolation, env=env, **options)[0]

    def workspaces(self, count: int, isolation: str = "light", env: Optional[Mapping[str, str]] = None,
                   **options: Any) -> List[Workspace]:
        """Creates ``count`` workspaces in one request (light batches; strong is one at a time).
        Fewer than asked (``rejected`` by a full host) raises UnavailableError after deleting
        the ones made, so nothing is left behind."""
        if isolation not in ("strong", "light"):
            raise ValueError('isolation must be "strong" or "light"')
        body: Dict[str, Any] = {"isolation": isolation}
        if isolation == "light":
            body["count"] = count
            if env:
                body["env"] = dict(env)
            body.update({_camel(k): v for k, v in options.items()})
        elif count != 1 or options:
            raise ValueError("strong workspaces are created one at a time, without options")
        doc = self._client.request("POST", "/v1/workspaces", json_body=body).json_object()  # type: ignore[union-attr]
        items = doc.get("workspaces")
        if not isinstance(items, list):
            raise ProtocolError(201, "workspace create: no workspaces array")
        made: List[Workspace] = []
        try:
            for item in items:
                if not isinstance(item, dict):
                    raise ProtocolError(201, "workspace create: an entry is not an object")
                ws_id = _parse.field(item, "id", str, "workspace create", 201)
                token = _parse.field(item, "token", str, "workspace create", 201)
                local_env = env if isolation == "strong" else None
                made.append(Workspace(Client(self._session, token), ws_id, info=item, env=local_env, owned=True))
        except RunboxError:
            for ws in made:
                ws.delete()
            raise
        if len(made) < count:
            for ws in made:
                ws.delete()
            raise UnavailableError(201, "workspaces_rejected",
                                   f"the agent made {len(made)} of {count} workspaces (rejected: {doc.get('rejected')})")
        return made

    def list_workspaces(self, isolation: Optional[str] = None) -> List[Dict[str, Any]]:
        """``GET /v1/workspaces``: the agent's workspaces as the agent describes them."""
        doc = self._client.request("GET", "/v1/workspaces", query={"isolation": isolation}).json_object()  # type: ignore[union-attr]
        items = doc.get("workspaces")
        if not isinstance(items, list):
            raise ProtocolError(200, "workspace list: no workspaces array")
        return [i for i in items if isinstance(i, dict)]

    def get_workspace(self, workspace_id: str) -> Workspace:
        """A handle on an existing workspace, signed with the agent token (not owned: not
        deleted by its context manager)."""
        for item in self.list_workspaces():
            if item.get("id") == workspace_id:
                return Workspace(self._client, workspace_id, info=item)
        raise NotFoundError(404, "workspace_not_found", f"no workspace {workspace_id}")

    @_hybridmethod
    def connect_workspace(cls, self: Optional["Agent"], workspace_id: str, token: str,
                          url: Optional[str] = None, state_dir: Optional[str] = None,
                          timeout_s: float = 60.0, fingerprint: Optional[str] = None) -> Workspace:
        """A handle on workspace ``workspace_id`` signed with its scoped ``token`` (what
        ``agent.workspace().token`` gave; the agent token is not needed). On an Agent it uses
        that agent's connections; on the class, ``url`` (else RUNBOX_URL or
        ``<state_dir>/agent.url``; an https:// one pinned by ``fingerprint``, else
        RUNBOX_FINGERPRINT). Not owned: its context manager does not delete it."""
        if self is not None and url is None:
            session = self._session
        else:
            if not url:
                directory = Path(state_dir or default_state_dir())
                url = os.environ.get("RUNBOX_URL") or _read_trimmed(directory / "agent.url") or DEFAULT_URL
            session = Session(url, timeout_s, pin=resolve_pin(fingerprint, url))
        return Workspace(Client(session, token), workspace_id, info={"id": workspace_id})

    def close(self) -> None:
        """Closes the kept-alive connections (the object stays usable: new ones are opened)."""
        self._session.close()

    def __enter__(self) -> "Agent":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


__all__ = ["Agent", "DEFAULT_URL", "default_state_dir", "resolve", "resolve_pin"]
