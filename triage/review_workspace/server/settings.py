"""The review server's settings (its token, port, reviewer, address, TLS) and the checks of where it
listens: `--host` (check_host), `--certificate` / `--key` (check_tls), the Host headers it answers,
this machine's addresses (is_local, network_address) and the lines `triage review` prints about them."""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from dataclasses import dataclass, field

from triage.errors import BadOption
from triage.review_workspace.server.error_answers import _short
from triage.review_workspace.workspace import DEFAULT_LEASE


@dataclass
class Settings:
    token: str
    port: int
    reviewer: str
    lexicon_dir: str | None = None
    lead: bool = False  # the lead reviewer: resolves the disagreements of the double review
    lease_seconds: float = DEFAULT_LEASE  # how long a message shown in the page stays this reviewer's
    base: str = field(default_factory=lambda: secrets.token_urlsafe(12))  # the secret path: /<base>/
    host: str = "127.0.0.1"  # the address listened on: the only one the Host header may name
    tls: bool = False  # served over https (--certificate, --key)
    network: str | None = None  # on every address: the address colleagues' links name (found when None)
    served: set = field(default_factory=set)  # the reviewers who used this server: their leases end with it

    def __post_init__(self):
        if self.every_address and self.network is None:
            self.network = network_address()

    @property
    def root(self) -> str:
        """The page's path, and the token cookie's Path: `/<base>/`."""
        return f"/{self.base}/"

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    @property
    def every_address(self) -> bool:
        """Whether it listens on every IPv4 address of the machine (--host 0.0.0.0)."""
        return self.host == EVERY_ADDRESS

    def link_host(self, colleague: bool = True) -> str:
        """The address a link names: the one listened on; on every address, the machine's network
        address for a colleague (127.0.0.1 when it has none) and 127.0.0.1 for the lead, who is
        on this computer (over TLS the network address too: the team's certificate names it)."""
        if not self.every_address:
            return self.host
        if not colleague and not self.tls:
            return "127.0.0.1"
        return self.network or "127.0.0.1"

    def netloc(self, colleague: bool = True) -> str:
        """`host:port` as a link names it (an IPv6 address in brackets)."""
        return f"{_bracketed(self.link_host(colleague))}:{self.port}"

    def link(self, token: str, *, colleague: bool = True) -> str:
        """The address that opens the page with `token` (a colleague's link, or the lead's own)."""
        return f"{self.scheme}://{self.netloc(colleague)}/?token={token}"

    def hosts(self) -> set[str]:
        """What the Host header may be: the address listened on (localhost too on 127.0.0.1 and ::1),
        with its port, or without it on the scheme's default port (on every address, see accepts)."""
        names = {_bracketed(self.host)}
        if self.host in ("127.0.0.1", "::1"):
            names.add("localhost")
        found = {f"{name}:{self.port}" for name in names}
        if self.port == (443 if self.tls else 80):
            found |= names
        return found

    def accepts(self, host: str) -> bool:
        """Whether a request's Host header names this server: one of `hosts()`; on every address,
        localhost or an IPv4 address of this machine, with the server's port (never a name a DNS
        server answers for: DNS rebinding)."""
        if not self.every_address:
            return host in self.hosts()
        name, colon, port = host.rpartition(":")
        if not colon:
            name, port = host, ""
        if port != str(self.port) and not (port == "" and self.port == (443 if self.tls else 80)):
            return False
        if name == "localhost":
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return address.version == 4 and not address.is_unspecified and str(address) == name and is_local(name)

    def origin_ok(self, origin: str) -> bool:
        """Whether an Origin header is this server's own (the page's requests)."""
        prefix = f"{self.scheme}://"
        return origin.startswith(prefix) and self.accepts(origin[len(prefix):])


EVERY_ADDRESS = "0.0.0.0"


def is_local(address: str) -> bool:
    """Whether an IPv4 address is one of this machine's (a socket can be bound to it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


def network_address() -> str | None:
    """This machine's IPv4 address on its network, the one colleagues reach: the address its default
    route leaves from (a UDP socket connected to a documentation address: nothing is sent), else one
    its host name resolves to; None when it has only loopback."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            found.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        found += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    for address in found:
        parsed = ipaddress.ip_address(address)
        if not (parsed.is_loopback or parsed.is_unspecified or parsed.is_link_local):
            return address
    return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def check_host(host: str) -> str:
    """The address `--host` names, as the server listens on it (0.0.0.0: every IPv4 address of the
    machine); a one-line error for a name, a malformed address, or every IPv6 address (::)."""
    try:
        address = ipaddress.ip_address(str(host).strip().strip("[]"))
    except ValueError:
        raise BadOption(f"--host takes an IP address of this machine (such as 192.168.1.20; `hostname -I` lists "
                        f"them), not {_short(str(host))}") from None
    if address.is_unspecified and address.version == 6:
        raise BadOption(f"--host {address} (every IPv6 address) is not supported: give 0.0.0.0 (every IPv4 address "
                        "of this machine) or the one address your colleagues reach (`hostname -I` lists them)")
    if address.is_multicast:
        raise BadOption(f"--host {address} is a multicast address, not one of this machine")
    return str(address)


def is_network(host: str) -> bool:
    """Whether others than this machine's users may reach an address (not a loopback one)."""
    return not ipaddress.ip_address(host).is_loopback


def network_warning(host: str, tls: bool) -> str:
    """The line `triage review` prints when it listens on a network address."""
    how = "over TLS" if tls else "unencrypted: give --certificate and --key, or use an SSH tunnel (docs/review.md)"
    if host == EVERY_ADDRESS:
        return (f"review: listening on every address of this machine ({host}): anyone who can reach one and "
                f"holds a link can review the messages; {how}")
    return (f"review: listening on {host}: anyone who can reach this address and holds a link can review "
            f"the messages; {how}")


def links_line(settings: Settings) -> str | None:
    """On every address, the line that says which address colleagues' links name."""
    if not settings.every_address:
        return None
    if settings.network is None:
        return ("review: this machine has no network address: links name 127.0.0.1 and reach this computer only "
                "(start with --host ADDRESS, an address colleagues reach)")
    return (f"review: colleagues' links name {settings.network} (another network of this machine: start with "
            "--host that address)")


class _EncryptedKey(Exception):
    pass


def check_tls(certificate, key) -> tuple[str, str] | None:
    """The certificate and key files `--certificate` / `--key` name, checked by loading them as the
    server will (a one-line error otherwise); None when neither is given."""
    import ssl

    if certificate is None and key is None:
        return None
    if certificate is None or key is None:
        raise BadOption("--certificate and --key go together: the certificate (PEM) and its private key")
    certificate, key = os.fspath(certificate), os.fspath(key)
    for option, path in (("--certificate", certificate), ("--key", key)):
        if not os.path.isfile(path):
            raise BadOption(f"{option} {path}: no such file")

    def no_passphrase():
        raise _EncryptedKey

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_verify_locations(cafile=certificate)
    except (ssl.SSLError, OSError, ValueError):
        raise BadOption(f"--certificate {certificate} is not a PEM certificate") from None
    try:
        context.load_cert_chain(certificate, key, password=no_passphrase)
    except _EncryptedKey:
        raise BadOption(f"--key {key} is encrypted: give the key without a passphrase (readable by you only)") from None
    except ssl.SSLError as err:
        if getattr(err, "reason", None) == "KEY_VALUES_MISMATCH":
            raise BadOption(f"--key {key} is not the private key of {certificate}") from None
        raise BadOption(f"--key {key} is not a PEM private key (of {certificate})") from None
    except OSError as err:
        raise BadOption(f"cannot read {key}: {err.strerror or err}") from None
    return certificate, key
