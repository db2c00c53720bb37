"""Checked reads of JSON answers: a missing or mistyped field is a ProtocolError naming it,
never a KeyError or TypeError (docs/contracts.md "API conventions" lists the shapes)."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any, Dict, List, Optional

from .errors import ProtocolError


def field(obj: Dict[str, Any], name: str, kind: type, what: str, status: Optional[int] = None) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolError(status, f"{what}: field {name!r} is missing or not a {kind.__name__} ({value!r})")
    return value


def optional(obj: Dict[str, Any], name: str, kind: type, what: str, status: Optional[int] = None) -> Any:
    if obj.get(name) is None:
        return None
    return field(obj, name, kind, what, status)


def str_list(obj: Dict[str, Any], name: str, what: str) -> List[str]:
    value = obj.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProtocolError(None, f"{what}: field {name!r} is not a list of strings")
    return list(value)


def event_bytes(event: Dict[str, Any], what: str) -> bytes:
    """The output bytes of a stdout/stderr event: ``data`` (UTF-8 text) or ``dataBase64``
    (docs/contracts.md "Event stream": clients must accept both)."""
    if isinstance(event.get("dataBase64"), str):
        try:
            return base64.b64decode(event["dataBase64"], validate=True)
        except (binascii.Error, ValueError):
            raise ProtocolError(None, f"{what}: dataBase64 is not base64") from None
    text = event.get("data")
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    raise ProtocolError(None, f"{what}: an output event has neither data nor dataBase64")


def iso_ms(value: Any) -> Optional[int]:
    """Milliseconds since the epoch of an ISO 8601 timestamp (``…Z`` accepted on 3.9) or of a
    number already in ms; None when absent or unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if not isinstance(value, str) or not value:
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        return int(datetime.fromisoformat(text).timestamp() * 1000)
    except ValueError:
        return None
