"""A throwaway MIT Kerberos KDC for the Kerberos tests (Debian's krb5-kdc, krb5-admin-server,
krb5-user).

`Kdc.start(workdir)` makes a realm in `workdir` with its own krb5.conf and kdc.conf, starts
`krb5kdc -n` on a free loopback port (TCP and UDP), and adds the principals the tests use, each
with a keytab: the service `hive/localhost`, the users `alice` and `bob`, and `carol`, whose
tickets live a few seconds (for the expiry test). `server_env()` is the environment of a server
that accepts with the service keytab; `client_env(user)` logs `user` in (`kinit -kt`) into its own
credential cache and returns the environment of a client using it.
"""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from hms_helpers import stop_process

REALM = "HIVESTORE.TEST"
SERVICE = "hive/localhost"
USERS = ("alice", "bob")
# A user whose tickets expire almost at once, and how long they live.
SHORT_LIVED_USER = "carol"
SHORT_LIFE_S = 4
# Ticket times are compared with this tolerance (seconds); Kerberos' default is 300.
CLOCK_SKEW_S = 1
START_TIMEOUT_S = 15.0
COMMAND_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
TOOLS = ("krb5kdc", "kdb5_util", "kadmin.local", "kinit")
PACKAGES = "krb5-kdc krb5-admin-server krb5-user"


def missing_tools() -> list:
    search = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return [tool for tool in TOOLS if shutil.which(tool, path=search) is None]


def _free_port() -> int:
    """A port free for both TCP and UDP on loopback."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                    udp.bind(("127.0.0.1", port))
                    return port
            except OSError:
                continue
    raise RuntimeError("no loopback port free for both TCP and UDP in 50 tries")


def _tool(name: str) -> str:
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or name


class Kdc:
    def __init__(self, workdir: Path):
        self.dir = workdir
        self.port = _free_port()
        self.krb5_conf = workdir / "krb5.conf"
        self.kdc_conf = workdir / "kdc.conf"
        self.log = workdir / "kdc.log"
        self.process = None

    @property
    def service_principal(self) -> str:
        return f"{SERVICE}@{REALM}"

    def keytab(self, name: str) -> Path:
        return self.dir / f"{name.replace('/', '_')}.keytab"

    def _env(self) -> dict:
        env = dict(os.environ)
        env["KRB5_CONFIG"] = str(self.krb5_conf)
        env["KRB5_KDC_PROFILE"] = str(self.kdc_conf)
        env.pop("KRB5CCNAME", None)
        env.pop("KRB5_KTNAME", None)
        return env

    def _run(self, *command, env=None):
        result = subprocess.run([_tool(command[0]), *command[1:]], env=env or self._env(),
                                stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=COMMAND_TIMEOUT_S)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): "
                               f"{result.stdout}{result.stderr}")
        return result.stdout

    def kadmin(self, query: str) -> str:
        return self._run("kadmin.local", "-r", REALM, "-q", query)

    def start(self) -> "Kdc":
        d = self.dir
        self.krb5_conf.write_text(f"""[libdefaults]
  default_realm = {REALM}
  dns_lookup_kdc = false
  dns_lookup_realm = false
  dns_canonicalize_hostname = false
  rdns = false
  udp_preference_limit = 1
  clockskew = {CLOCK_SKEW_S}
  ticket_lifetime = 1h
  forwardable = false
  default_ccache_name = FILE:{d}/ccache-default

[realms]
  {REALM} = {{
    kdc = 127.0.0.1:{self.port}
  }}

[domain_realm]
  localhost = {REALM}
""")
        self.kdc_conf.write_text(f"""[kdcdefaults]
  kdc_tcp_listen = 127.0.0.1:{self.port}
  kdc_listen = 127.0.0.1:{self.port}

[realms]
  {REALM} = {{
    database_name = {d}/principal
    key_stash_file = {d}/stash
    acl_file = {d}/kadm5.acl
    max_life = 1h
    max_renewable_life = 0
    supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
  }}

[logging]
  kdc = FILE:{self.log}
""")
        (d / "kadm5.acl").write_text("")
        self._run("kdb5_util", "-r", REALM, "create", "-s", "-P", "hivestore-test-master")
        self.process = subprocess.Popen([_tool("krb5kdc"), "-n", "-r", REALM], env=self._env(),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(d / "krb5kdc.stderr", "wb"))
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._accepts():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"krb5kdc did not start on port {self.port}: "
                                   f"{(d / 'krb5kdc.stderr').read_text()}")
            time.sleep(0.05)
        for name in (SERVICE, *USERS):
            self.add_principal(name)
        self.add_principal(SHORT_LIVED_USER, f'-maxlife "{SHORT_LIFE_S} seconds"')
        return self

    def add_principal(self, name: str, options: str = "") -> Path:
        self.kadmin(f"addprinc -randkey {options} {name}")
        self.kadmin(f"ktadd -k {self.keytab(name)} {name}")
        return self.keytab(name)

    def _accepts(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def server_env(self) -> dict:
        """The environment of a server accepting as hive/localhost (its keytab is also given by
        flag)."""
        env = self._env()
        env.pop("KRB5_KDC_PROFILE")
        env["KRB5_KTNAME"] = f"FILE:{self.keytab(SERVICE)}"
        return env

    def client_env(self, user: str) -> dict:
        """Logs `user` in from its keytab into a cache of its own; the environment using it."""
        env = self._env()
        env.pop("KRB5_KDC_PROFILE")
        env["KRB5CCNAME"] = f"FILE:{self.dir}/ccache-{user}"
        self._run("kinit", "-kt", str(self.keytab(user)), f"{user}@{REALM}", env=env)
        return env

    def empty_client_env(self) -> dict:
        """A client environment whose credential cache holds no ticket."""
        env = self._env()
        env.pop("KRB5_KDC_PROFILE")
        env["KRB5CCNAME"] = f"FILE:{self.dir}/ccache-nobody"
        return env

    def stop(self) -> None:
        stop_process(self.process, STOP_TIMEOUT_S)
        self.process = None
