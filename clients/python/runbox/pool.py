"""``Pool``: workspaces placed across the agents of a fleet file that host one pool, by the
rules of the C++ pool client (``shared/PoolClient``, ``runbox pool``; docs/contracts.md "Pool
hosts" and "Fleet file").

- The pool's hosts are the fleet's agents whose ``GET /v1/health`` ``"pool"`` names it.
- Placement runs in rounds (at most ``max_rounds``, 8): each reads every agent's health in
  parallel and plans by those optimistic ``free`` counts, filling hosts in the fleet's order,
  then sends the round's creates at once (a light host gets one batch, a strong host one
  request per workspace). Each host's own ``rejected`` is the authority. An agent that does not
  answer (or answers 5xx) is skipped for the rest of the call; a 4xx refusal ends it.
- All or nothing: a call that cannot place every workspace deletes what it made and raises
  PoolFullError (``pool_full``), NoPoolHostsError (``no_pool_hosts``: no reachable agent of the
  fleet carries the pool) or PoolCreateRefusedError (``create_refused``); ``left_behind`` names
  any pooled id the roll-back could not delete.
- Pooled ids are ``<host>.<local id>``, split at the first ``.``.

Every agent is reached with its fleet ``fingerprint`` as its TLS pin (``runbox._tls``): a wrong
pin, or none for a certificate the system CA store does not verify, makes that agent
unreachable before anything is sent to it.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from ._http import Client, Session, quote_path
from .agent import _camel
from .errors import (FleetTokenError, NoPoolHostsError, NotFoundError, PoolCancelledError, PoolCreateRefusedError,
                     PoolDeleteError, PoolError, PoolFullError, ProtocolError, RunboxError)
from . import slurm
from .fleet import Fleet, FleetAgent
from .workspace import Workspace

_MAX_LIGHT_PER_REQUEST = 1024  # below the agent's own bound on a light batch
_MAX_PARALLEL = 16
T = TypeVar("T")
R = TypeVar("R")


def pooled_id(host: str, local_id: str) -> str:
    """``<host>.<local id>``."""
    return f"{host}.{local_id}"


def split_pooled_id(pooled: str) -> Optional[Tuple[str, str]]:
    """``(host, local id)`` split at the first ``.``; None when there is none or either side
    is empty (``PoolClient::splitPooledId``)."""
    host, dot, local = pooled.partition(".")
    if not dot or not host or not local:
        return None
    return host, local


@dataclass(frozen=True)
class PoolHost:
    """What one fleet agent's ``/v1/health`` says about it as a pool host. ``reachable``: it
    answered with its health (else ``error`` says why: no answer, a refused certificate, an HTTP
    error, an unusable token). ``pool`` is "" on an agent that hosts no pool; ``capacity`` 0
    and ``free`` None mean no pool limit."""

    name: str
    url: str
    reachable: bool
    error: str = ""
    pool: str = ""
    capacity: int = 0
    workspaces: int = 0
    free: Optional[int] = None
    exit_when_idle_s: int = 0
    labels: Tuple[str, ...] = ()


class PooledWorkspace(Workspace):
    """A workspace of a pool, used like ``agent.workspace()``'s: ``id`` is the pooled id
    ``<host>.<local id>``, ``host`` the fleet name of its agent, ``local_id`` the agent's own
    id. Signed with its scoped token (``token``) over that agent's pinned connections."""

    def __init__(self, client: Client, host: str, local_id: str, *, info: Optional[Dict[str, Any]] = None,
                 env: Optional[Mapping[str, str]] = None, owned: bool = False) -> None:
        pid = pooled_id(host, local_id)
        record = dict(info or {})
        record.update(id=pid, host=host, localId=local_id)
        super().__init__(client, pid, info=record, env=env, owned=owned, local_id=local_id)
        self.host = host

    def __repr__(self) -> str:
        return f"PooledWorkspace({self.id!r}, isolation={self.isolation!r})"


class Placement(List[PooledWorkspace]):
    """The workspaces one :meth:`Pool.create` placed (a list), with ``placed`` (host → count),
    ``skipped`` (host → why it was skipped) and ``rounds``."""

    def __init__(self, workspaces: Sequence[PooledWorkspace], placed: Dict[str, int], skipped: Dict[str, str],
                 rounds: int) -> None:
        super().__init__(workspaces)
        self.placed = placed
        self.skipped = skipped
        self.rounds = rounds


class _Host:
    """One fleet agent: its token (or why it has none) and two pinned sessions, one for the
    survey (a short timeout) and one for everything else."""

    def __init__(self, agent: FleetAgent, timeout_s: float, survey_timeout_s: float) -> None:
        self.agent = agent
        self.name = agent.name
        # An agent reached through ssh (a console profile) has no url: never a pool host here.
        self.session: Optional[Session] = Session(agent.url, timeout_s, pin=agent.pin) if agent.url else None
        self._survey_session: Optional[Session] = \
            Session(agent.url, survey_timeout_s, pin=agent.pin) if agent.url else None
        self.token_error = ""
        self.client: Optional[Client] = None
        self.survey_client: Optional[Client] = None
        try:
            token = agent.read_token()
        except FleetTokenError as e:
            self.token_error = e.message
        else:
            assert self.session is not None and self._survey_session is not None
            self.client = Client(self.session, token)
            self.survey_client = Client(self._survey_session, token)

    def health(self) -> PoolHost:
        if self.survey_client is None:
            return PoolHost(self.name, self.agent.url, False, self.token_error)
        try:
            doc = self.survey_client.request("GET", "/v1/health").json_object()  # type: ignore[union-attr]
        except RunboxError as e:
            return PoolHost(self.name, self.agent.url, False, _describe(e))
        pool = doc.get("pool")
        if not isinstance(pool, dict):
            return PoolHost(self.name, self.agent.url, True)
        free = pool.get("free")
        labels = pool.get("labels")
        return PoolHost(self.name, self.agent.url, True, "",
                        pool=pool.get("name") if isinstance(pool.get("name"), str) else "",
                        capacity=_int(pool.get("capacity")), workspaces=_int(pool.get("workspaces")),
                        free=_int(free) if _is_number(free) else None,
                        exit_when_idle_s=_int(pool.get("exitWhenIdleS")),
                        labels=tuple(v for v in labels if isinstance(v, str)) if isinstance(labels, list) else ())

    def close(self) -> None:
        for session in (self.session, self._survey_session):
            if session is not None:
                session.close()


class Pool:
    """The pool ``name`` over the agents of ``fleet`` (a :class:`~runbox.Fleet`, a fleet file's
    path, or None for :func:`runbox.fleet.default_path`). ``timeout_s`` bounds each socket read
    of a create, a delete or a run; ``survey_timeout_s`` each health read. As a context manager,
    closes its connections on exit (the workspaces stay)."""

    def __init__(self, name: str, fleet: Union[Fleet, str, "os.PathLike[str]", None] = None, *,
                 timeout_s: float = 120.0, survey_timeout_s: float = 10.0, max_rounds: int = 8) -> None:
        self.name = name
        self.fleet = fleet if isinstance(fleet, Fleet) else Fleet.load(fleet)
        self.max_rounds = max_rounds
        self._timeout_s, self._survey_timeout_s = timeout_s, survey_timeout_s
        self._slurm_hosts: Dict[str, _Host] = {}
        self._hosts = [_Host(a, timeout_s, survey_timeout_s) for a in self.fleet]

    def __repr__(self) -> str:
        return f"Pool({self.name!r}, {[h.name for h in self._hosts]!r})"

    def survey(self) -> List[PoolHost]:
        """Every fleet agent's state, read in parallel (``GET /v1/health``), in the fleet's
        order: those whose ``pool`` is this pool's name are its hosts."""
        return _parallel(lambda h: h.health(), self._hosts)

    def hosts(self) -> List[PoolHost]:
        """The reachable agents that host this pool, in the fleet's order."""
        return [s for s in self.survey() if s.reachable and s.pool == self.name]

    def create(self, count: int, isolation: str = "light", env: Optional[Mapping[str, str]] = None, *,
               on_round_planned: Optional[Callable[[int, Dict[str, int]], None]] = None,
               cancelled: Optional[Callable[[], bool]] = None, **light_options: Any) -> Placement:
        """Places ``count`` workspaces of ``isolation`` (``"light"`` or ``"strong"``) in the
        pool, all or none (the module's rules). ``env``: for light workspaces sent to the agent;
        for strong ones kept by each handle and merged into its runs (as ``Agent.workspace``).
        ``light_options``: further light create fields in snake or camel case
        (``idle_timeout_s``…). ``on_round_planned(round, {host: n})`` is called once a round is
        planned, before its creates go out; ``cancelled()`` is asked after each round: True
        ends the call with PoolCancelledError, what was made deleted. Returns a
        :class:`Placement` of :class:`PooledWorkspace` (deleted by their context manager)."""
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError("count must be a whole number >= 1")
        if isolation not in ("light", "strong"):
            raise ValueError('isolation must be "strong" or "light"')
        light = isolation == "light"
        if not light and light_options:
            raise ValueError("strong workspaces take no create options")
        options: Dict[str, Any] = {_camel(k): v for k, v in light_options.items()}
        if light and env:
            options["env"] = dict(env)
        local_env = env if not light else None

        dead: set = set()
        made: List[PooledWorkspace] = []
        placed: Dict[str, int] = {}
        skipped: Dict[str, str] = {}
        last_state: Dict[str, str] = {}
        fatal = ""
        code = ""
        any_host = False
        rounds = 0
        for rnd in range(1, self.max_rounds + 1):
            if len(made) >= count:
                break
            rounds = rnd
            to_place = count - len(made)
            calls: List[Tuple[_Host, Dict[str, Any]]] = []
            planned: Dict[str, int] = {}
            states = self.survey()
            for host, s in zip(self._hosts, states):
                if to_place <= 0:
                    break
                if host.name in dead:
                    continue
                if not s.reachable:  # its pool is unknown: skipped, and said so
                    skipped[s.name] = "unreachable: " + s.error
                    last_state[s.name] = skipped[s.name]
                    continue
                if s.pool != self.name:
                    continue
                any_host = True
                n = to_place if s.free is None else min(s.free, to_place)
                last_state[s.name] = f"{'no limit' if s.free is None else s.free} free of {s.capacity}"
                if n <= 0:
                    continue
                to_place -= n
                planned[s.name] = n
                left = n
                while left > 0:
                    batch = min(left, _MAX_LIGHT_PER_REQUEST) if light else 1
                    body = dict(options) if light else {}
                    body["isolation"] = isolation
                    if light:
                        body["count"] = batch
                    calls.append((host, body))
                    left -= batch
            if not calls:
                break  # no pool host has room: more rounds would see the same
            if on_round_planned is not None:
                on_round_planned(rnd, dict(planned))
            answers = _parallel(_send_create, calls)
            for (host, _), answer in zip(calls, answers):
                if isinstance(answer, RunboxError):
                    if answer.status is None or answer.status >= 500:  # gone or failing: skipped from now on
                        dead.add(host.name)
                        skipped[host.name] = ("unreachable: " + answer.message if answer.status is None
                                              else f"{answer.status} {answer.code}: {answer.message}")
                        last_state[host.name] = skipped[host.name]
                    else:  # the request itself is refused: every host would refuse it
                        fatal = f"{host.name} answered {answer.status} {answer.code}: {answer.message}"
                    continue
                items = answer.get("workspaces")
                for item in items if isinstance(items, list) else []:
                    if not isinstance(item, dict) or not isinstance(item.get("id"), str) \
                            or not isinstance(item.get("token"), str):
                        continue
                    assert host.client is not None
                    made.append(PooledWorkspace(Client(host.session, item["token"]), host.name, item["id"],
                                                info=item, env=local_env, owned=True))
                    placed[host.name] = placed.get(host.name, 0) + 1
                rejected = _int(answer.get("rejected"))
                if rejected > 0:
                    last_state[host.name] = f"full (rejected {rejected})"
            if fatal:
                break
            if cancelled is not None and cancelled():
                code = "cancelled"
                break
        if len(made) == count and not fatal and not code:
            return Placement(made, placed, skipped, rounds)

        left_behind = self._roll_back(made)
        states_text = "; ".join(f"{k}: {v}" for k, v in sorted(last_state.items()))
        kwargs: Dict[str, Any] = dict(placed=placed, skipped=skipped, left_behind=left_behind, rounds=rounds)
        error: PoolError
        if code == "cancelled":
            error = PoolCancelledError(code, f"pool {self.name}: cancelled after {rounds} round(s); nothing kept",
                                       **kwargs)
        elif fatal:
            error = PoolCreateRefusedError("create_refused", f"pool {self.name}: {fatal}; nothing kept", **kwargs)
        elif not any_host:
            error = NoPoolHostsError("no_pool_hosts", f"pool {self.name}: no reachable agent of the fleet is a "
                                     f"host of it ({states_text})", **kwargs)
        else:
            error = PoolFullError("pool_full", f"pool {self.name}: room for {len(made)} of {count} workspaces "
                                  f"after {rounds} round(s); nothing kept ({states_text})", **kwargs)
        if left_behind:
            error.message += "; could not delete again: " + " ".join(left_behind)
            error.args = (f"{error.code}: {error.message}",)
        raise error

    def _roll_back(self, made: List[PooledWorkspace]) -> List[str]:
        """Deletes ``made`` in parallel with the agent tokens; the pooled ids not deleted."""
        by_name = {h.name: h for h in self._hosts}

        def delete(ws: PooledWorkspace) -> bool:
            client = by_name[ws.host].client
            assert client is not None
            try:
                client.request("DELETE", f"/v1/workspaces/{_quote(ws.local_id)}")
            except RunboxError as e:
                return e.status == 404
            ws.owned = False
            return True

        return [ws.id for ws, ok in zip(made, _parallel(delete, made)) if not ok]

    def workspace(self, pooled: str, token: Optional[str] = None) -> PooledWorkspace:
        """A handle on the pooled workspace ``pooled`` (``<host>.<local id>``) signed with its
        scoped ``token`` (what ``create`` gave as ``ws.token``), or with the host's agent
        token when None; over that agent's pinned connections. Not owned: its context manager
        does not delete it. A host the fleet does not list may be a Slurm pool's
        ``POOL-JOBID``, found in the file its job published (:mod:`runbox.slurm`). ValueError
        for an id that is not a pooled one, NotFoundError (``host_not_found``) when neither
        names that host."""
        parts = split_pooled_id(pooled)
        if parts is None:
            raise ValueError(f"{pooled!r} is not a pooled id <host>.<local id>")
        host = next((h for h in self._hosts if h.name == parts[0]), None)
        if host is None:
            host = self._slurm_hosts.get(parts[0])
            published = slurm.published_host(parts[0]) if host is None else None
            if published is not None:  # kept apart: never placed on by create()
                host = self._slurm_hosts[parts[0]] = _Host(published, self._timeout_s, self._survey_timeout_s)
        if host is None:
            raise NotFoundError(None, "host_not_found", f"the fleet {self.fleet.path} has no agent {parts[0]} "
                                f"(pooled id {pooled})")
        if host.session is None:
            host.agent.read_token()  # raises: reached through ssh
        assert host.session is not None
        client = Client(host.session, token or host.agent.read_token())
        return PooledWorkspace(client, host.name, parts[1])

    def delete_all(self) -> Dict[str, int]:
        """Deletes every workspace on the hosts of this pool (light ones in bulk, strong ones
        one by one; an environment's build workspace is kept), as ``runbox pool rm``: host →
        count deleted. PoolDeleteError (with ``deleted`` and ``errors``) when an agent of the
        fleet could not be reached or a delete was refused; the rest is done first."""
        deleted: Dict[str, int] = {}
        errors: List[str] = []
        for host, s in zip(self._hosts, self.survey()):
            if not s.reachable:
                errors.append(f"{s.name}: unreachable: {s.error}")
                continue
            if s.pool != self.name:
                continue
            assert host.client is not None
            client = host.client
            deleted[s.name] = 0
            try:
                doc = client.request("GET", "/v1/workspaces").json_object()  # type: ignore[union-attr]
            except RunboxError as e:
                errors.append(f"{s.name}: {_describe(e)}")
                continue
            items = doc.get("workspaces")
            targets: List[str] = []
            any_light = False
            for w in items if isinstance(items, list) else []:
                if not isinstance(w, dict) or "environmentBuild" in w:
                    continue  # the agent's own, deleted with its environment
                if w.get("isolation") == "light":
                    any_light = True
                elif isinstance(w.get("id"), str):
                    targets.append(f"/v1/workspaces/{_quote(w['id'])}")
            if any_light:
                targets.append("/v1/workspaces?isolation=light")

            def delete(target: str, client: Client = client) -> Union[int, RunboxError]:
                path, _, query = target.partition("?")
                try:
                    answer = client.request("DELETE", path, query={"isolation": "light"} if query else None)
                except RunboxError as e:
                    return e
                if not query:
                    return 1
                try:
                    listed = answer.json_object().get("deleted")  # type: ignore[union-attr]
                except ProtocolError:
                    listed = None
                return len(listed) if isinstance(listed, list) else 0

            for outcome in _parallel(delete, targets):
                if isinstance(outcome, RunboxError):
                    errors.append(f"{s.name}: {outcome.status} {outcome.code}: {outcome.message}")
                else:
                    deleted[s.name] += outcome
        if errors:
            raise PoolDeleteError(f"pool {self.name}: " + "; ".join(errors), deleted, errors)
        return deleted

    def close(self) -> None:
        """Closes the kept-alive connections to every agent (the pool stays usable)."""
        for h in [*self._hosts, *self._slurm_hosts.values()]:
            h.close()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _send_create(call: Tuple[_Host, Dict[str, Any]]) -> Union[Dict[str, Any], RunboxError]:
    host, body = call
    assert host.client is not None
    try:
        answer = host.client.request("POST", "/v1/workspaces", json_body=body)
    except RunboxError as e:
        return e
    try:
        return answer.json_object()  # type: ignore[union-attr]
    except ProtocolError:
        return {}


def _parallel(fn: Callable[[T], R], items: Sequence[T]) -> List[R]:
    """``fn`` over ``items`` at once (at most 16 threads), results in ``items``' order."""
    if len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=min(_MAX_PARALLEL, len(items))) as ex:
        return list(ex.map(fn, items))


def _describe(e: RunboxError) -> str:
    return e.message if e.status is None else f"{e.status} {e.code}: {e.message}"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int(v: Any) -> int:
    return int(v) if _is_number(v) else 0


def _quote(local_id: str) -> str:
    return quote_path(local_id)


__all__ = ["Pool", "PoolHost", "PooledWorkspace", "Placement", "pooled_id", "split_pooled_id"]
