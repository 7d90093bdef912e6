"""A PostgreSQL server (Debian's postgresql binaries) for the tests of `--store postgres://`:
a fresh cluster in a temporary directory on a free loopback port, trust authentication for
user `hive`, stopped (immediately) at the end. PostgreSQL refuses to run as root, so as root
its programs run as the `postgres` user, in a directory of its own under the system's
temporary directory (pytest's are closed to other users).

    with PostgresServer() as postgres:
        postgres.url("metastore")     # postgres://hive@127.0.0.1:PORT/metastore
        postgres.create_database("metastore")
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from conftest import free_loopback_port

COMMAND_TIMEOUT_S = 60.0


def bin_dir():
    """The newest installed server's programs, or None."""
    root = Path("/usr/lib/postgresql")
    found = sorted(path / "bin" for path in root.glob("*") if (path / "bin" / "initdb").is_file())
    return found[-1] if found else None


class PostgresServer:
    def __init__(self):
        self.directory = None
        self.data = None
        self.bin = bin_dir()
        self.port = None
        self.as_postgres = os.geteuid() == 0

    def _run(self, program: str, *args: str) -> str:
        command = [str(self.bin / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def __enter__(self) -> "PostgresServer":
        if self.bin is None:
            raise RuntimeError("PostgreSQL's server programs are missing (Debian's postgresql; "
                               ".ci/run installs it)")
        self.directory = Path(tempfile.mkdtemp(prefix="hivestore-postgres-"))
        self.data = self.directory / "data"
        if self.as_postgres:
            shutil.chown(self.directory, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "hive", "--no-sync",
                  "-E", "UTF8")
        self.port = free_loopback_port()
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.directory / "server.log"),
                  "-o", options, "-w", "start")
        return self

    def __exit__(self, *_exc) -> None:
        if self.port is not None:
            try:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgres://hive@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> str:
        return self._run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "hive",
                         "-d", database, "-At", "-c", statement)

    def create_database(self, name: str) -> None:
        self.sql(f"CREATE DATABASE {name}")
