"""Events as the recorded traces and digests hold them: the parameters that later versions added
to an event are left out (the rules did not change; an old stored event without them still
renders)."""

from __future__ import annotations

from typing import Any

from engine.core import Event

#: Event parameters added after traces and digests were recorded, by event key.
ADDED_PARAMS: dict[str, tuple[str, ...]] = {"ms.ev.reroll": ("rerolled",)}


def as_recorded(e: Event) -> list[Any]:
    """``[key, params, sorted audience or None]`` without the parameters of :data:`ADDED_PARAMS`."""
    dropped = ADDED_PARAMS.get(e.key, ())
    params = {k: v for k, v in e.params.items() if k not in dropped} if dropped else e.params
    return [e.key, params, sorted(e.audience) if e.audience is not None else None]
