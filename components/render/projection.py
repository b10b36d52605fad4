"""Projection of secretRefs, configMapRefs and volumes into the pod, by reference only."""

from __future__ import annotations

from dataclasses import dataclass, field

from components.args.blocks import ConfigMapRefArgs, SecretRefArgs, VolumeArgs
from components.render.objects import Obj


@dataclass
class Projection:
    env: list[Obj] = field(default_factory=list)
    env_from: list[Obj] = field(default_factory=list)
    volumes: list[Obj] = field(default_factory=list)
    volume_mounts: list[Obj] = field(default_factory=list)


def _project(
    out: Projection,
    ref: SecretRefArgs | ConfigMapRefArgs,
    keys: list[tuple[str, str | None, str | None]],
    kind: str,
) -> None:
    """``kind`` is ``secret`` or ``configMap``; ``keys`` are (key, envVar, path)."""
    if ref.type == "env":
        if not keys:
            out.env_from.append({f"{kind}Ref": {"name": ref.name}})
        for key, env_var, _ in keys:
            out.env.append({"name": env_var or key, "valueFrom": {f"{kind}KeyRef": {"name": ref.name, "key": key}}})
        return
    volume_name = f"{kind.lower()}-{ref.name}"
    source: Obj = {"secretName": ref.name} if kind == "secret" else {"name": ref.name}
    if keys:
        source["items"] = [{"key": key, "path": path or key} for key, _, path in keys]
    out.volumes.append({"name": volume_name, kind: source})
    out.volume_mounts.append({"name": volume_name, "mountPath": ref.mount_path, "readOnly": True})


def project_refs(
    secret_refs: list[SecretRefArgs],
    config_map_refs: list[ConfigMapRefArgs],
    volumes: list[VolumeArgs],
) -> Projection:
    """Env entries, envFrom sources, volumes and mounts in the contract's order:
    secret refs, then config map refs, then extra volumes."""
    out = Projection()
    for secret_ref in secret_refs:
        _project(out, secret_ref, [(k.secret_key, k.env_var, k.path) for k in secret_ref.keys], "secret")
    for config_map_ref in config_map_refs:
        _project(out, config_map_ref, [(k.config_map_key, k.env_var, k.path) for k in config_map_ref.keys], "configMap")
    for volume in volumes:
        mount: Obj = {"name": volume.name, "mountPath": volume.mount_path}
        if volume.persistent_volume_claim is not None:
            claim = volume.persistent_volume_claim
            source: Obj = {"persistentVolumeClaim": {"claimName": claim.claim_name}}
            if claim.read_only:
                source["persistentVolumeClaim"]["readOnly"] = True
                mount["readOnly"] = True
        else:
            empty_dir = volume.empty_dir
            source = {"emptyDir": {} if empty_dir is None else empty_dir.model_dump(by_alias=True, exclude_none=True)}
        out.volumes.append({"name": volume.name, **source})
        out.volume_mounts.append(mount)
    return out
