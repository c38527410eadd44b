"""Refusals decided at the edge, before the domain is asked anything."""

from __future__ import annotations

from ddbguard.errors import FieldError


class EdgeError(Exception):
    def __init__(self, status: int, code: str, detail: str, errors: list[FieldError] | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors or []
