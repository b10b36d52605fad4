"""The package's gRPC server: the SDK's component server, plus the resource operations of
``connectors:index:Registration`` served in this same process; every private part of the SDK
that the package's provider process uses is here (pulumi 3.x), and ``tests/package/test_provider_server.py``
fails when an SDK upgrade changes one.

- The Python SDK's provider server (``pulumi.provider.server.ProviderServicer``) implements
  ``Construct``, ``Call`` and ``Invoke`` only; the engine calls ``Check``, ``Diff``,
  ``Create``, ``Read``, ``Update`` and ``Delete`` for a custom resource of the package. They
  are added by subclassing it, and ``serve`` replaces the SDK's ``main`` to start the subclass
  with the SDK's own channel options (``_grpc_settings``). Each operation runs the
  registration's provider (``registration.provider``) in a thread, so that a slow platform
  holds one call, not the server.
- ``construct`` receives a consumer's inputs as Outputs whose data came with the request, so
  their values are already there; the public API only offers them through ``apply``, after
  the component has been built, too late to validate them first. ``Output._data`` (a future
  of ``_OutputData``: value, known, secret) is read at once instead (``resolved``), and
  ``Unknown`` is what the server passes for a value unknown at preview.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
import pulumi
from google.protobuf import empty_pb2
from pulumi.output import Unknown
from pulumi.provider.provider import Provider
from pulumi.provider.server import ProviderServicer
from pulumi.runtime import proto, rpc
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS as GRPC_OPTIONS
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, provider_pb2_grpc

from components.package.package_registration import FROM_PACKAGE, from_package, to_package
from components.registration import contract, errors, journal
from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider
from components.registration.provider_host import THREADS
from components.type_tokens import REGISTRATION

__all__ = ["GRPC_OPTIONS", "PackageServicer", "Resolved", "Unknown", "resolved", "serve", "unknown_output"]


@dataclass(frozen=True)
class Resolved:
    value: Any
    known: bool
    secret: bool


def resolved(output: pulumi.Output[Any]) -> Resolved | None:
    """The Output's data when it has arrived (None otherwise), without awaiting it."""
    data = output._data
    if not data.done():
        return None
    result = data.result()
    return Resolved(result.value, result.is_known, result.is_secret)


def unknown_output() -> pulumi.Output[Any]:
    """An Output that stays unknown (a value the engine knows only after ``up``)."""
    known: asyncio.Future[bool] = asyncio.Future()
    known.set_result(False)
    value: asyncio.Future[Any] = asyncio.Future()
    value.set_result(None)
    return pulumi.Output(set(), value, known)


def unwrapped(struct: Any, keep_unknowns: bool = False) -> tuple[dict[str, Any], set[str]]:
    """The request's properties as plain values (the provider's names), and which held a secret."""
    props = rpc.deserialize_properties(struct, keep_unknowns) if struct is not None else {}
    secret: set[str] = set()

    def plain(value: Any, top: str) -> Any:
        if rpc.is_rpc_secret(value):
            secret.add(top)
            return plain(rpc.unwrap_rpc_secret(value), top)
        if isinstance(value, dict):
            return {k: plain(v, top) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v, top) for v in value]
        return value

    values = {key: plain(value, key) for key, value in props.items()}
    return from_package(values), {FROM_PACKAGE.get(key, key) for key in secret}


async def wired(props: dict[str, Any], secret: set[str]) -> Any:
    """The provider's outputs as the engine takes them: the package's names, secrets marked."""
    always = contract.ALWAYS_SECRET
    marked = {k: rpc.wrap_rpc_secret(v) if (k in secret or k in always) and v is not None else v for k, v in props.items()}
    return await rpc.serialize_properties(to_package(marked), {})


class PackageServicer(ProviderServicer):
    """The SDK's component server, with the registration's resource operations."""

    registrations = RegistrationProvider()

    async def _run(self, context: Any, request: Any, operation: Callable[..., Any], *args: Any) -> Any:
        # The thread below runs in a copy of this context: the request's stack names its journal,
        # and its warnings go to the engine under the request's URN.
        journal.STACK.set(journal.stack_of(request.urn))
        errors.WARNINGS.set(functools.partial(self._warn, request.urn))
        try:
            return await asyncio.to_thread(operation, *args)
        except RegistrationError as error:
            await context.abort(grpc.StatusCode.UNKNOWN, str(error))
        except Exception as error:  # a bug: its kind only, never its text (it may quote an answer)
            await context.abort(grpc.StatusCode.INTERNAL, f"the registration failed inside the provider ({type(error).__name__})")

    def _warn(self, urn: str, message: str) -> None:
        """A warning shown by the engine beside the resource (a resource plugin's stderr is hidden)."""
        if self._engine is None:
            self._engine = engine_pb2_grpc.EngineStub(grpc.insecure_channel(self.engine_address, options=GRPC_OPTIONS))
        self._engine.Log(engine_pb2.LogRequest(severity=engine_pb2.WARNING, message=message, urn=urn))

    _engine: Any = None

    @staticmethod
    def _ours(request: Any) -> None:
        if request.type and request.type != REGISTRATION:
            raise ValueError(f"unknown resource type {request.type}")

    async def Check(self, request: Any, context: Any) -> Any:
        self._ours(request)
        news, _ = unwrapped(request.news, keep_unknowns=True)
        result = self.registrations.check({}, news)
        failures = [proto.CheckFailure(property=f.property, reason=f.reason) for f in result.failures]
        return proto.CheckResponse(inputs=request.news, failures=failures)

    async def Diff(self, request: Any, context: Any) -> Any:
        olds, _ = unwrapped(request.olds)
        news, _ = unwrapped(request.news, keep_unknowns=True)
        result = self.registrations.diff(request.id, olds, news)
        changes = proto.DiffResponse.DIFF_SOME if result.changes else proto.DiffResponse.DIFF_NONE
        return proto.DiffResponse(
            changes=changes,
            replaces=list(to_package(dict.fromkeys(result.replaces or []))),
            stables=list(to_package(dict.fromkeys(result.stables or []))),
            deleteBeforeReplace=bool(result.delete_before_replace),
        )

    async def Create(self, request: Any, context: Any) -> Any:
        props, secret = unwrapped(request.properties)
        result = await self._run(context, request, self.registrations.create, props)
        return proto.CreateResponse(id=result.id, properties=await wired(result.outs, secret))

    async def Read(self, request: Any, context: Any) -> Any:
        props, secret = unwrapped(request.properties)
        result = await self._run(context, request, self.registrations.read, request.id, props)
        if not result.id:
            return proto.ReadResponse(id="")
        return proto.ReadResponse(id=result.id, properties=await wired(result.outs, secret), inputs=request.inputs)

    async def Update(self, request: Any, context: Any) -> Any:
        olds, _ = unwrapped(request.olds)
        news, secret = unwrapped(request.news)
        result = await self._run(context, request, self.registrations.update, request.id, olds, news)
        return proto.UpdateResponse(properties=await wired(result.outs, secret))

    async def Delete(self, request: Any, context: Any) -> Any:
        props, _ = unwrapped(request.properties)
        await self._run(context, request, self.registrations.delete, request.id, props)
        return empty_pb2.Empty()


def serve(provider: Provider, args: list[str]) -> None:
    """The SDK's ``pulumi.provider.main``, starting ``PackageServicer``."""
    parser = argparse.ArgumentParser(description="Pulumi provider plugin (gRPC server)")
    parser.add_argument("engine", help="Pulumi engine address")
    engine_address = parser.parse_known_args(args)[0].engine

    async def run() -> None:
        # Registrations wait on the platform in threads: as many at once as the engine sends
        # (the default executor would hold them to a handful on a small machine).
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=THREADS))
        server = grpc.aio.server(options=GRPC_OPTIONS)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(PackageServicer(provider, args, engine_address), server)
        port = server.add_insecure_port(address="127.0.0.1:0")
        await server.start()
        sys.stdout.buffer.write(f"{port}\n".encode())
        sys.stdout.buffer.flush()
        await server.wait_for_termination()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
