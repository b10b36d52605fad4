"""The platform stand-in's register endpoint, in the Core's order (see ``platform_double``): held
calls (``hold_after``), answers lost after the save (``lose_answers_after``), the script, an unreadable body 400, a blank name 422, duplicates 409, the
call back, the record saved, unknown attribute definitions 404."""

from __future__ import annotations

import json
import time
import uuid as uuids
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .connector_callback import call_back
from .http_answer import answer_json

if TYPE_CHECKING:
    from .platform_double import PlatformDouble, Record


class RegisterCalls:
    """``POST /v2/connector/register``, for the stand-in's request handler."""

    double: PlatformDouble
    close_connection: bool
    wfile: Any

    def _answer(self, op: dict[str, Any] | None, status: int, body: Any = None) -> None:
        raise NotImplementedError

    def _refuse(self, status: int, message: str) -> None:
        raise NotImplementedError

    def _register(self, op: dict[str, Any], path: str, body: Any, unreadable: bool) -> None:
        double = self.double
        if self._held():
            return
        if double.register_delay:
            time.sleep(double.register_delay)
        if double.register_gate is not None:
            double.register_gate.wait(600)
        double.register_times.append(datetime.now(UTC))
        double.paths.append("/api" + path)
        double.requests.append(body)
        if double.script:
            answer = double.script.pop(0)
            answer_json(self, answer.status, json.dumps(answer.body).encode() if answer.body is not None else b"")
            return
        if unreadable or not isinstance(body, dict) or not {"name", "url", "version", "authType"} <= set(body):
            self._answer(op, 400, {"message": "the request could not be read"})
            return
        if not body["name"].strip():
            self._refuse(422, "name must not be blank")
            return
        with double.lock:
            lost = double.lose_answers_after is not None and len(double.records) >= double.lose_answers_after
            record = self._saved(body)
            double.held += lost and record is not None
        if record is None:
            return
        if lost:  # saved; the answer never leaves
            double.released.wait(600)
            self.close_connection = True
            return
        unknown = [
            a["name"]
            for a in body.get("customAttributes") or []
            if a["name"] not in (double.attribute_definitions or {a["name"]})
        ]
        if unknown:
            self._answer(op, 404, {"message": "attribute definition not found"})
            return
        self._answer(op, 200, record.detail())
        if double.after_register is not None:
            self.wfile.flush()
            double.after_register()

    def _held(self) -> bool:
        """Kept waiting (``hold_after``), then dropped without an answer."""
        double = self.double
        with double.lock:
            held = double.hold_after is not None and len(double.records) >= double.hold_after
            double.held += held
        if held:
            double.released.wait(600)
            self.close_connection = True
        return held

    def _saved(self, body: dict[str, Any]) -> Record | None:
        """The record the register call saves, after the Core's checks in its order; None when
        one of them answered."""
        from .platform_double import V2_INTERFACES, Record  # the stand-in's own module, loaded by now

        records = list(self.double.records.values())
        if any(r.name == body["name"] for r in records):
            self._refuse(409, "connector with the same name already exists")
            return None
        if any((r.url, r.version) == (body["url"], body["version"]) for r in records):
            self._refuse(409, "connector with the same url and version already exists")
            return None
        interfaces = list(V2_INTERFACES)
        if self.double.callback:
            refused, interfaces = call_back(body["url"], body["version"], self.double.resolve)
            if refused is not None:
                self._refuse(refused, "connector could not be reached" if refused >= 500 else "connector refused")
                return None
        record = Record(
            str(uuids.uuid4()), body["name"], body["version"], body["url"], body["authType"],
            body.get("authAttributes") or [], body.get("customAttributes") or [], interfaces=interfaces,
        )  # fmt: skip
        self.double.records[record.uuid] = record
        return record
