"""An OpenLDAP server (Debian's slapd) for the LDAP authentication tests: started in the
foreground in a temporary directory on a free loopback port, with an mdb database under
dc=example,dc=com holding two users, and stopped at the end.

    with LdapServer(tmp_path) as ldap:
        ldap.url                  # ldap://127.0.0.1:PORT
        ldap.user_dn("alice")     # uid=alice,ou=people,dc=example,dc=com
        LdapServer.USERS          # {"alice": "alice-pw", "bob": "bob-pw"}
"""

import shutil
import socket
import subprocess
import time
from pathlib import Path

from conftest import free_loopback_port
from hms_helpers import stop_process

SLAPD = "/usr/sbin/slapd"
SLAPADD = "/usr/sbin/slapadd"
SCHEMA_DIR = Path("/etc/ldap/schema")
MODULE_DIR = Path("/usr/lib/ldap")
STARTUP_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
SUFFIX = "dc=example,dc=com"
PEOPLE = f"ou=people,{SUFFIX}"


def slapd_installed() -> bool:
    return Path(SLAPD).is_file() and Path(SLAPADD).is_file()


class LdapServer:
    """slapd with two users (their passwords in USERS), as a context manager."""

    USERS = {"alice": "alice-pw", "bob": "bob-pw"}

    def __init__(self, directory: Path):
        self.directory = Path(directory) / "slapd"
        self.port = None
        self.process = None
        self.log_path = self.directory / "slapd.log"

    @property
    def url(self) -> str:
        return f"ldap://127.0.0.1:{self.port}"

    @staticmethod
    def user_dn(user: str) -> str:
        return f"uid={user},{PEOPLE}"

    def _write_config(self) -> Path:
        database = self.directory / "db"
        database.mkdir(parents=True, exist_ok=True)
        config = self.directory / "slapd.conf"
        schemas = "".join(f"include {SCHEMA_DIR / name}.schema\n"
                          for name in ("core", "cosine", "inetorgperson"))
        config.write_text(
            schemas
            + f"modulepath {MODULE_DIR}\nmoduleload back_mdb\n"
            + f"pidfile {self.directory / 'slapd.pid'}\n"
            + "database mdb\n"
            + f'suffix "{SUFFIX}"\n'
            + f'rootdn "cn=admin,{SUFFIX}"\n'
            + f"directory {database}\n"
            + "maxsize 10485760\n"
            + "access to attrs=userPassword by anonymous auth by * none\n"
            + "access to * by * read\n")
        entries = [
            f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\n"
            "dc: example\no: example\n",
            f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: people\n",
        ]
        for user, password in self.USERS.items():
            entries.append(
                f"dn: {self.user_dn(user)}\nobjectClass: inetOrgPerson\nuid: {user}\n"
                f"cn: {user}\nsn: {user}\nuserPassword: {password}\n")
        ldif = self.directory / "users.ldif"
        ldif.write_text("\n".join(entries))
        subprocess.run([SLAPADD, "-f", str(config), "-l", str(ldif)], check=True,
                       capture_output=True, timeout=STARTUP_TIMEOUT_S)
        return config

    def __enter__(self) -> "LdapServer":
        if self.directory.exists():
            shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True)
        config = self._write_config()
        self.port = free_loopback_port()
        log = open(self.log_path, "wb")
        # -d keeps slapd in the foreground, so it is this process's child to stop.
        self.process = subprocess.Popen(
            [SLAPD, "-d", "none", "-f", str(config), "-h", f"{self.url}/"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"slapd exited with {self.process.returncode}: "
                                   f"{self.log_path.read_text(errors='replace')}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0):
                    return self
            except OSError:
                time.sleep(0.1)
        self.__exit__(None, None, None)
        raise RuntimeError(f"slapd did not listen on {self.url} within {STARTUP_TIMEOUT_S} s")

    def __exit__(self, *exc):
        stop_process(self.process, STOP_TIMEOUT_S)
        self.process = None
        return False
