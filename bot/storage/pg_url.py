"""PostgreSQL connection URLs in every form asyncpg (like libpq) reads, without a password
ever leaving this module: a TCP host, several hosts, an IPv6 address, a Unix socket
(`postgresql://user@/db?host=/var/run/postgresql`, or the socket folder percent-encoded as
the host), no host at all (PGHOST or the default socket), with or without a password, the
database in the path or as ?dbname= / ?database=.

asyncpg connects with the URL exactly as given; this only reads it to check the settings
and to name the server in messages."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

from bot.core.errors import SteadyError

SCHEMES = ("postgresql", "postgres")
DEFAULT_PORT = 5432


class PgUrlError(SteadyError, ValueError):
    """The URL is not one asyncpg could use; the message never holds the URL."""


@dataclass(frozen=True)
class PgTarget:
    """Where a URL points: hosts (a path for a Unix socket folder, "" for the default),
    ports, and the database. No user and no password: nothing here may be secret."""

    hosts: tuple[str, ...]
    ports: tuple[int, ...]
    database: str
    # `?search_path=` (asyncpg passes it to the server): two schemas of one database are
    # two places, as two databases are (the suite's replicas run that way).
    schema: str = ""

    @property
    def display(self) -> str:
        """For messages and logs: host/database, a socket as its folder."""
        host = ",".join(self.hosts) or "localhost"
        return f"{host}/{self.database}" if self.database else f"{host}/"


def _query(raw: str) -> dict[str, str]:
    # As asyncpg: a name given twice counts once, the last.
    return {name: values[-1] for name, values in parse_qs(raw, keep_blank_values=True).items()}


def _hostlist(spec: str, *, quoted: bool) -> tuple[list[str], list[int | None]]:
    hosts: list[str] = []
    ports: list[int | None] = []
    for item in spec.split(","):
        if item.startswith("["):  # an IPv6 address, maybe with a port after the bracket
            address, _, rest = item[1:].partition("]")
            port_text = rest[1:] if rest.startswith(":") else ""
        elif item.startswith("/") or (quoted and unquote(item).startswith("/")):
            address, port_text = item, ""  # a socket folder holds no port
        else:
            address, _, port_text = item.partition(":")
        if quoted:
            address, port_text = unquote(address), unquote(port_text)
        if port_text and not port_text.isdigit():
            raise PgUrlError("its port is not a number")
        hosts.append(address)
        ports.append(int(port_text) if port_text else None)
    return hosts, ports


def parse(url: str) -> PgTarget:
    """Where `url` points, or PgUrlError with a reason that repeats nothing of it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        raise PgUrlError("it is not a URL") from None
    if parts.scheme not in SCHEMES:
        raise PgUrlError("it is not a postgresql:// URL")
    query = _query(parts.query)
    netloc = parts.netloc.rpartition("@")[2]  # what is before the "@" is user:password
    hosts: list[str] = []
    ports: list[int | None] = []
    if netloc:
        hosts, ports = _hostlist(netloc, quoted=True)
    if query.get("host") and not any(hosts):
        hosts, ports = _hostlist(query["host"], quoted=False)
    if query.get("port"):
        given = query["port"].split(",")
        if not all(p.isdigit() for p in given):
            raise PgUrlError("its port is not a number")
        ports = [int(p) for p in given]
    hosts = hosts or [""]
    if len(ports) not in (0, 1, len(hosts)):
        raise PgUrlError("it names a different number of ports and hosts")
    resolved = [p if p is not None else DEFAULT_PORT for p in ports] or [DEFAULT_PORT]
    if len(resolved) == 1:
        resolved *= len(hosts)
    if any(not 0 < p < 65536 for p in resolved):
        raise PgUrlError("its port is out of range")
    database = unquote(parts.path[1:]) if parts.path.startswith("/") else unquote(parts.path)
    database = database or query.get("dbname", "") or query.get("database", "")
    return PgTarget(tuple(hosts), tuple(resolved), database, query.get("search_path", ""))


def display_name(url: str) -> str:
    """host/database for messages: never the user or the password."""
    try:
        return parse(url).display
    except PgUrlError:
        return "(an unreadable URL)"
