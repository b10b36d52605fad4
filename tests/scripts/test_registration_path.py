"""``scripts/registration_path``: a registration followed from ``create`` to the socket enters
the provider and at most four other modules, and comes back to none but the provider."""

from __future__ import annotations

from scripts.registration_path import PACKAGE, path_to_the_socket, reentered


def test_a_registration_reaches_the_socket_through_at_most_five_modules_coming_back_only_to_the_provider(monkeypatch):
    for variable in ("CONNECTORS_REGISTRATION_JOURNAL", "PULUMI_BACKEND_URL"):
        monkeypatch.delenv(variable, raising=False)
    path = [m.removeprefix(f"{PACKAGE}.") for m in path_to_the_socket()]
    assert path[0] == "provider" and "client" in path, path
    assert len(set(path)) <= 5, path
    assert set(reentered(path)) <= {"provider"}, path


def test_reentered_counts_each_return_to_a_module_left():
    assert reentered(["provider", "contract", "provider", "client", "contract", "client"]) == ["provider", "contract", "client"]
    assert reentered(["provider", "client"]) == []
