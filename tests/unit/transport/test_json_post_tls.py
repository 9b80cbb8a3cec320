"""The check-in's small HTTP client (bot/transport/json_post.py) over TLS, as it talks to
https://api.telegram.org in production: a local TLS server on 127.0.0.1 with a CA and a
leaf made here (nothing committed, no network). The client must refuse a certificate it
cannot verify (as a NetworkError the send policy retries, never a hang), and with the
test CA trusted keep its connections alive as over plain HTTP."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from telegram.error import NetworkError, TimedOut

from bot.transport.json_post import KeepAliveClient
from bot.transport.send_outcome import Failure, failure_of
from tests.helpers.http_server import OK, Server, answer, in_pieces, write


@dataclass(frozen=True)
class Pki:
    ca_pem: str
    chain: Path  # the leaf then the CA
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _make_pki(folder: Path, names: list[x509.GeneralName]) -> Pki:
    """A CA and a leaf for `names`, with the extensions strict verification asks for
    (Python 3.13's default context sets VERIFY_X509_STRICT)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("steady test CA"))
        .issuer_name(_name("steady test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name("steady test server"))
        .issuer_name(ca.subject)
        .public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(leaf_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    chain, key = folder / "chain.pem", folder / "key.pem"
    pem = serialization.Encoding.PEM
    chain.write_bytes(leaf.public_bytes(pem) + ca.public_bytes(pem))
    key.write_bytes(
        leaf_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return Pki(ca.public_bytes(pem).decode("ascii"), chain, key)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    names: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
    ]
    return _make_pki(tmp_path_factory.mktemp("pki"), names)


def trusting(ca_pem: str) -> ssl.SSLContext:
    """The production context, trusting the test CA in place of the system's."""
    return ssl.create_default_context(cadata=ca_pem)


@asynccontextmanager
async def serving_tls(
    pki: Pki, host: str, context: ssl.SSLContext | None
) -> AsyncIterator[tuple[Server, KeepAliveClient, list[str | None]]]:
    """A TLS server on 127.0.0.1, a poster for https://`host`:port, and the SNI names the
    server was offered, one per handshake."""
    server = Server()
    offered: list[str | None] = []
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(pki.chain, pki.key)
    server_context.sni_callback = lambda _sock, name, _context: offered.append(name)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0, ssl=server_context)
    port = listening.sockets[0].getsockname()[1]
    poster = KeepAliveClient(
        f"https://{host}:{port}",
        connections=2,
        connect_timeout=30.0,
        read_timeout=30.0,
        user_agent="test",
        ssl_context=context,
    )
    try:
        yield server, poster, offered
    finally:
        await poster.close()
        listening.close()
        await listening.wait_closed()


async def test_an_unknown_ca_is_refused_as_a_network_error(pki: Pki) -> None:
    # Left out, the context is the system's: it knows nothing of the test CA.
    async with serving_tls(pki, "127.0.0.1", None) as (server, poster, _):
        async with asyncio.timeout(60):  # a refusal, never a hang
            with pytest.raises(NetworkError) as raised:
                await poster.post("/botTOKEN/sendMessage", b'{"chat_id":1}')
        assert not isinstance(raised.value, TimedOut)  # nothing was sent: the policy retries
        assert failure_of(raised.value) is Failure.GAVE_UP  # not blocked, not gone
        assert "SSLCertVerificationError" in str(raised.value)
        assert "TOKEN" not in str(raised.value)
        assert server.requests == []  # no byte of the request reached the server


async def test_a_certificate_for_another_name_is_refused(tmp_path: Path) -> None:
    other = _make_pki(tmp_path, [x509.DNSName("api.telegram.org")])
    async with serving_tls(other, "127.0.0.1", trusting(other.ca_pem)) as (
        server,
        poster,
        _,
    ):
        async with asyncio.timeout(60):
            with pytest.raises(NetworkError) as raised:
                await poster.post("/x", b"{}")
        assert not isinstance(raised.value, TimedOut)
        assert server.requests == []


async def test_keep_alive_over_tls_with_the_test_ca_trusted(pki: Pki) -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\n" + OK[:5] + b"\r\n" + f"{len(OK) - 5:x}".encode() + b"\r\n" + OK[5:] + b"\r\n"
        b"0\r\n\r\n"
    )
    async with serving_tls(pki, "127.0.0.1", trusting(pki.ca_pem)) as (server, poster, _):
        server.replies += [write(answer(OK)), write(answer(OK)), in_pieces(chunked, 3)]
        async with asyncio.timeout(60):
            assert await poster.post("/botTOKEN/sendMessage", b'{"chat_id":1}') == (200, OK)
            assert await poster.post("/botTOKEN/sendMessage", b'{"chat_id":2}') == (200, OK)
            assert await poster.post("/botTOKEN/sendMessage", b'{"chat_id":3}') == (200, OK)
        assert server.connections == 1  # one handshake, three requests
        assert [request.rsplit(b"\r\n\r\n", 1)[1] for request in server.requests] == [
            b'{"chat_id":1}',
            b'{"chat_id":2}',
            b'{"chat_id":3}',
        ]
        assert server.requests[0].startswith(b"POST /botTOKEN/sendMessage HTTP/1.1\r\n")


async def test_a_server_closing_between_requests_is_reconnected_to(pki: Pki) -> None:
    def answer_then_close(writer: asyncio.StreamWriter) -> None:
        writer.write(answer(OK))  # says nothing of closing: the client learns it from TLS
        writer.close()

    async with serving_tls(pki, "127.0.0.1", trusting(pki.ca_pem)) as (server, poster, _):
        server.replies += [answer_then_close, write(answer(OK))]
        async with asyncio.timeout(60):
            assert await poster.post("/x", b"{}") == (200, OK)
            # The request must not go on the connection the server closed: wait until
            # the client has seen the close (close_notify, then the end of the stream).
            [connection] = poster._idle
            if not connection.closed:
                lost = asyncio.Event()
                seen = connection.connection_lost

                def noting(exc: Exception | None) -> None:
                    seen(exc)
                    lost.set()

                connection.connection_lost = noting  # type: ignore[method-assign]
                await lost.wait()
            assert await poster.post("/x", b"{}") == (200, OK)
        assert server.connections == 2


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
async def test_the_host_header_and_sni_name_the_origin(pki: Pki, host: str) -> None:
    async with serving_tls(pki, host, trusting(pki.ca_pem)) as (server, poster, offered):
        server.replies.append(write(answer(OK)))
        async with asyncio.timeout(60):
            assert await poster.post("/x", b"{}") == (200, OK)
        port = poster._port
        assert f"\r\nHost: {host}:{port}\r\n".encode() in server.requests[0]
        # SNI carries a host name; an IP address is never sent in it (RFC 6066 3).
        assert offered == (["localhost"] if host == "localhost" else [None])


async def test_a_server_that_never_shakes_hands_is_a_network_error_in_time() -> None:
    accepted: list[asyncio.StreamWriter] = []
    listening = await asyncio.start_server(
        lambda _reader, writer: accepted.append(writer), "127.0.0.1", 0
    )
    port = listening.sockets[0].getsockname()[1]
    poster = KeepAliveClient(
        f"https://127.0.0.1:{port}",
        connections=1,
        connect_timeout=0.2,  # the handshake is part of connecting
        read_timeout=30.0,
        user_agent="t",
    )
    try:
        async with asyncio.timeout(60):
            with pytest.raises(NetworkError) as raised:
                await poster.post("/x", b"{}")
        assert not isinstance(raised.value, TimedOut)  # nothing was sent: the policy retries
    finally:
        await poster.close()
        for writer in accepted:
            writer.close()
        listening.close()
        await listening.wait_closed()
