"""``package.schema``: what the models give other languages. The whole schema against the models
is checked through the real CLI (``tests/multilang/test_yaml_program.py``); here, its rules."""

from __future__ import annotations

from typing import Annotated

import pytest

from components.args.base import Model, NotInPackage
from components.package.schema import SchemaBuilder, in_package, package_schema


def test_two_models_of_one_name_are_refused_not_merged():
    class CertificateArgs(Model):
        """A certificate."""

        enabled: bool = True
        """On."""

    first = CertificateArgs

    class CertificateArgs(Model):  # type: ignore[no-redef]  # another module's model of the same name
        """Another certificate."""

        enabled: bool = True
        """On."""
        host: str | None = None
        """Where."""

    builder = SchemaBuilder()
    builder.object_type(first)
    with pytest.raises(TypeError, match="both connectors:index:Certificate"):
        builder.object_type(CertificateArgs)


def test_only_a_field_marked_not_in_package_is_left_out():
    class SourcesArgs(Model):
        source: str = "provided"
        """Where it comes from."""
        resource: Annotated[object, NotInPackage()] = None
        """A Python program's own resource."""

    assert [in_package(info) for info in SourcesArgs.model_fields.values()] == [True, False]
    properties, _ = SchemaBuilder().properties(SourcesArgs)
    assert list(properties) == ["source"]


def test_the_platforms_blocks_keep_every_field_in_the_schema():
    types = package_schema()["types"]
    assert "source" in types["connectors:index:AdminCertificate"]["properties"]
    assert "source" in types["connectors:index:EdgeTls"]["properties"]
    assert "ingressNamespace" in types["connectors:index:PlatformNetworkPolicy"]["properties"]
    assert "source" not in types["connectors:index:SecretRef"]["properties"], "a Python program's own resource"
