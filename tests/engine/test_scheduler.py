"""nmthpo.engine.scheduler: an address must answer Dask's protocol, not only accept TCP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from nmthpo.commands.validate import UsageError, check_scheduler
from nmthpo.engine.scheduler import TIMEOUT_S, parse_scheduler_address
from nmthpo.engine.scheduler import check_scheduler as engine_check
from nmthpo.errors import InputValueError

distributed = pytest.importorskip("distributed")


class _Server:
    """A TCP server on a free local port that is not Dask: ``silent`` accepts and says
    nothing, ``garbage`` sends bytes and stays, ``http`` answers like a web server, ``bye``
    closes every connection at once."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            try:
                if self.mode == "garbage":
                    conn.sendall(b"\x00garbage, not a Dask frame\n" * 4)
                elif self.mode == "http":
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                elif self.mode == "bye":
                    conn.close()
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[_Server]:
    s = _Server(request.param)
    yield s
    s.close()


def _closed_port() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"tcp://127.0.0.1:{port}"


def test_a_real_scheduler_is_accepted_and_a_worker_is_not() -> None:
    with distributed.LocalCluster(
        n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        ident = engine_check(cluster.scheduler_address)
        assert ident["type"] == "Scheduler"
        # the command line cannot reach an in-process cluster: refused, with the fix
        with pytest.raises(UsageError, match="reachable only from the process"):
            check_scheduler(cluster.scheduler_address)
        worker = next(iter(cluster.scheduler.workers))
        with pytest.raises(InputValueError, match="a Dask Worker answered, not a scheduler"):
            engine_check(worker)
    with distributed.LocalCluster(
        n_workers=1, processes=False, threads_per_worker=1, protocol="tcp", dashboard_address=None
    ) as cluster:
        check_scheduler(cluster.scheduler_address)  # the command line's check: accepted
        assert engine_check(cluster.scheduler_address.removeprefix("tcp://"))["type"] == (
            "Scheduler"
        )


@pytest.mark.parametrize("server", ["silent"], indirect=True)
def test_a_silent_server_is_refused_within_the_timeout(server: _Server) -> None:
    t0 = time.monotonic()
    with pytest.raises(UsageError) as info:
        check_scheduler(server.address)
    took = time.monotonic() - t0
    msg = str(info.value)
    assert msg.startswith(f"--scheduler {server.address}: accepted a connection but gave no ")
    assert f"within {TIMEOUT_S:g} s" in msg and "drop --scheduler" in msg
    assert "\n" not in msg
    assert TIMEOUT_S - 0.5 < took < TIMEOUT_S + 2.0, took


@pytest.mark.parametrize("server", ["garbage", "http", "bye"], indirect=True)
def test_a_server_that_is_not_dask_is_refused_fast(server: _Server) -> None:
    t0 = time.monotonic()
    with pytest.raises(InputValueError) as info:
        engine_check(server.address, timeout=2.0)
    assert time.monotonic() - t0 < 2.0 + 1.5
    msg = str(info.value)
    assert msg.startswith(f"scheduler {server.address}: ")
    assert "not a Dask scheduler" in msg or "no Dask answer" in msg, msg
    assert "scheduler=None" in msg and "\n" not in msg


def test_a_closed_port_is_refused_at_once() -> None:
    address = _closed_port()
    t0 = time.monotonic()
    with pytest.raises(UsageError, match="no Dask scheduler there"):
        check_scheduler(address)
    assert time.monotonic() - t0 < 1.0


@pytest.mark.parametrize(
    ("address", "needle"),
    [
        ("http://127.0.0.1:8786", "unsupported protocol 'http'"),
        ("127.0.0.1", "expected tcp://HOST:PORT"),
        ("tcp://127.0.0.1:99999", "expected tcp://HOST:PORT"),
        ("tcp://:8786", "expected tcp://HOST:PORT"),
        ("tcp://127.0.0.1:8786/path", "expected tcp://HOST:PORT"),
        ("", "expected an address"),
    ],
)
def test_malformed_addresses_are_refused_by_their_form(address: str, needle: str) -> None:
    with pytest.raises(InputValueError, match=needle):
        parse_scheduler_address(address)
    with pytest.raises(UsageError, match=needle):
        check_scheduler(address)


def test_forms_of_an_address() -> None:
    assert parse_scheduler_address("127.0.0.1:8786") == ("tcp", "127.0.0.1", 8786)
    assert parse_scheduler_address("tls://sched.example:8786") == ("tls", "sched.example", 8786)
    assert parse_scheduler_address("inproc://1.2.3.4/5/6")[0] == "inproc"
    with pytest.raises(InputValueError, match="in-process address"):
        parse_scheduler_address("inproc://1.2.3.4/5/6", in_process=False)


def test_unresolvable_host() -> None:
    with pytest.raises(UsageError, match="cannot resolve host 'no-such-host.invalid'"):
        check_scheduler("tcp://no-such-host.invalid:8786")
