"""A real PostgreSQL server for the state backend tests, from Debian's packages.

Started on 127.0.0.1 on a free port with a temporary data folder and its own user and password;
stopped and its files removed at the end, even when a test fails. Run as the ``postgres`` user
when the tests run as root (PostgreSQL refuses root), and killed by the kernel if the test
process dies outright.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

PR_SET_PDEATHSIG = 1
CANDIDATES = [pathlib.Path(os.environ.get("POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))]


class PostgresUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class PostgresServer:
    host: str
    port: int
    user: str
    password: str
    database: str

    def psql(self, sql: str, database: str | None = None) -> subprocess.CompletedProcess[str]:
        """``sql`` run by psql as the server's user (unaligned rows on stdout)."""
        psql = shutil.which("psql") or str(postgres_bin() / "psql")
        return subprocess.run(
            [psql, "-h", self.host, "-p", str(self.port), "-U", self.user, "-d", database or self.database,
             "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
            env={**os.environ, "PGPASSWORD": self.password}, capture_output=True, text=True,
        )  # fmt: skip

    @property
    def backend_url(self) -> str:
        """The Pulumi DIY backend URL for this server's database."""
        return f"postgres://{self.user}:{self.password}@{self.host}:{self.port}/{self.database}?sslmode=disable"


def postgres_bin() -> pathlib.Path:
    for candidate in CANDIDATES:
        if (candidate / "postgres").exists() and (candidate / "initdb").exists():
            return candidate
    raise PostgresUnavailable("PostgreSQL 15 is not installed (Debian: apt-get install postgresql-15)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(user: pwd.struct_passwd | None) -> None:
    """In the child: become the server's user, then die with the test process (the kernel
    clears the death signal on a change of user, so it is set after)."""
    os.setsid()
    if user is not None:
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@contextlib.contextmanager
def postgres_server(folder: pathlib.Path) -> Iterator[PostgresServer]:
    bin_dir = postgres_bin()
    user = pwd.getpwnam("postgres") if os.geteuid() == 0 else None
    folder.mkdir(parents=True, exist_ok=True)
    if user is not None:
        os.chown(folder, user.pw_uid, user.pw_gid)
    password = secrets.token_urlsafe(18)
    server = PostgresServer("127.0.0.1", free_port(), "pulumi_state", password, "pulumi_state")
    password_file = folder / "password"
    password_file.write_text(password)
    if user is not None:
        os.chown(password_file, user.pw_uid, user.pw_gid)
    data = folder / "data"

    def run(*command: str) -> None:
        done = subprocess.run(command, preexec_fn=lambda: _as_server_user(user), capture_output=True, text=True)
        if done.returncode != 0:
            raise PostgresUnavailable(f"{pathlib.Path(command[0]).name} failed: {done.stderr[-2000:]}")

    process = None
    try:
        run(
            str(bin_dir / "initdb"), "-D", str(data), "-U", server.user, "--auth=scram-sha-256",
            f"--pwfile={password_file}", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        password_file.unlink()
        log = open(folder / "postgres.log", "w")
        process = subprocess.Popen(
            [
                str(bin_dir / "postgres"), "-D", str(data), "-p", str(server.port), "-k", str(folder),
                "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200",
            ],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=lambda: _as_server_user(user),
        )  # fmt: skip
        _create_database(server, process, folder)
        yield server
    finally:
        if process is not None:
            process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _create_database(server: PostgresServer, process: subprocess.Popen[bytes], folder: pathlib.Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise PostgresUnavailable(f"postgres exited: {(folder / 'postgres.log').read_text()[-2000:]}")
        done = server.psql(f"CREATE DATABASE {server.database}", database="postgres")
        if done.returncode == 0:
            return
        if time.monotonic() > deadline:
            raise PostgresUnavailable(f"postgres did not accept connections: {done.stderr[-1000:]}")
        time.sleep(0.2)
