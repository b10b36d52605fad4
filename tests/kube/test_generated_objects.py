"""Waiting for what an upstream operator generates: the Secret's data once it and the Services
are there, polled; past the deadline, a failure naming each object still missing and nothing
read."""

from __future__ import annotations

import pytest

from components.kube.generated_objects import Generated, GeneratedObjectsMissing, wait_for
from components.kube.object_reader import Reference, ReferenceReadError

from ..support.mocks import StaticReader

SECRET = Reference("secret", "ilm-db-app", "ilm")
WANTED = Generated(SECRET, ("ilm-db-pooler",), "CloudNativePG", 'Cluster "ilm-db"')
DATA = {"username": "aWxt", "password": "c2VjcmV0"}


class Appearing(StaticReader):
    """The Secret after ``secret_after`` polls, the Service after ``service_after``."""

    def __init__(self, secret_after: int | None, service_after: int | None) -> None:
        super().__init__({}, services=set())
        self.polls, self.secret_after, self.service_after = 0, secret_after, service_after

    def read(self, ref):
        self.polls += 1
        if self.secret_after is not None and self.polls > self.secret_after:
            self.objects[("secret", "ilm", "ilm-db-app")] = DATA
        if self.service_after is not None and self.polls > self.service_after:
            self.services = {("ilm", "ilm-db-pooler")}
        return super().read(ref)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize(
    ("secret_after", "service_after", "polls"),
    [(0, 0, 1), (3, 0, 4), (0, 5, 6), (4, 2, 5)],
    ids=["there-already", "secret-later", "service-later", "both-later"],
)
def test_the_data_once_everything_is_there(secret_after, service_after, polls):
    reader, clock = Appearing(secret_after, service_after), Clock()
    assert wait_for(reader, WANTED, deadline=60, clock=clock, sleep=clock.sleep) == DATA
    assert reader.polls == polls


@pytest.mark.parametrize(
    ("secret_after", "service_after", "missing"),
    [
        (None, None, 'Secret "ilm-db-app" in namespace "ilm", Service "ilm-db-pooler" in namespace "ilm" not there'),
        (0, None, 'Service "ilm-db-pooler" in namespace "ilm" not there'),
        (None, 0, 'Secret "ilm-db-app" in namespace "ilm" not there'),
    ],
)
def test_past_the_deadline_each_missing_object_is_named(secret_after, service_after, missing):
    reader, clock = Appearing(secret_after, service_after), Clock()
    with pytest.raises(GeneratedObjectsMissing) as caught:
        wait_for(reader, WANTED, deadline=10, clock=clock, sleep=clock.sleep)
    assert str(caught.value) == (
        f'waited 10 s for what CloudNativePG makes of Cluster "ilm-db": {missing}'
        " (is CloudNativePG running, and the Cluster healthy?)"
    )
    assert clock.now >= 10 and reader.polls == 6
    assert "c2VjcmV0" not in str(caught.value)


class Failing(StaticReader):
    """An API server that fails its first ``failures`` reads, then has everything."""

    def __init__(self, failures: int) -> None:
        super().__init__({("secret", "ilm", "ilm-db-app"): DATA})
        self.failures = failures

    def read(self, ref):
        if self.failures:
            self.failures -= 1
            raise ReferenceReadError(f"cannot read {ref.describe()}: status 503")
        return super().read(ref)


def test_a_passing_failure_of_the_api_server_is_asked_again_and_named_at_the_deadline():
    clock = Clock()
    assert wait_for(Failing(2), WANTED, deadline=60, clock=clock, sleep=clock.sleep) == DATA
    with pytest.raises(GeneratedObjectsMissing, match='cannot read Secret "ilm-db-app" in namespace "ilm": status 503'):
        wait_for(Failing(100), WANTED, deadline=10, clock=clock, sleep=clock.sleep)
