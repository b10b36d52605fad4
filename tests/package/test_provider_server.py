"""The package's provider process's workarounds inside the SDK (``components.package.provider_server``),
checked against the installed SDK: the test fails when an upgrade changes what they rely on."""

from __future__ import annotations

import inspect


def test_the_sdks_provider_server_serves_components_only_and_starts_as_the_package_does():
    from pulumi.provider import server
    from pulumi.runtime.proto import provider_pb2_grpc

    from components.package.provider_server import GRPC_OPTIONS, PackageServicer

    for rpc in ("Check", "Diff", "Create", "Read", "Update", "Delete"):
        inherited = getattr(server.ProviderServicer, rpc)
        assert inherited is getattr(provider_pb2_grpc.ResourceProviderServicer, rpc), f"the SDK serves {rpc} now"
        assert getattr(PackageServicer, rpc) is not inherited
    main = inspect.getsource(server.main)
    assert "ProviderServicer(provider, args, engine_address=engine_address)" in main
    assert "add_ResourceProviderServicer_to_server" in main and "_GRPC_CHANNEL_OPTIONS" in main
    assert GRPC_OPTIONS
    from pulumi.runtime.proto import engine_pb2

    fields = engine_pb2.LogRequest.DESCRIPTOR.fields_by_name  # the package's warnings, under a URN
    assert {"severity", "message", "urn"} <= set(fields) and engine_pb2.WARNING
