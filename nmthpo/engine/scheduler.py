"""Is there a Dask scheduler at an address? One check for the command line and the Python API.

``nmthpo run --scheduler ADDRESS`` (:func:`nmthpo.commands.validate.check_scheduler`) and
``nmthpo.run(..., scheduler=ADDRESS)`` (:func:`nmthpo.engine.runner.check_scheduler_address`)
both call :func:`check_scheduler` before any work starts. A TCP connection is not enough: a
port that accepts connections but is not a Dask scheduler (another service, an HTTP server, a
Dask *worker*) would make the run hang later. So the check

1. reads the address (``tcp://HOST:PORT``, ``tls://HOST:PORT`` or ``HOST:PORT``) and resolves
   the host (standard library only);
2. opens a TCP connection (a closed port is refused at once, not after the timeout);
3. speaks Dask's protocol through ``distributed`` itself (:func:`distributed.comm.connect`:
   the handshake both ends exchange, then an ``identity`` request, which a scheduler answers
   with ``{"type": "Scheduler", ...}``), all within :data:`TIMEOUT_S` seconds, on a fresh
   event loop in a thread of its own (so it works under a running loop, e.g. in Jupyter).

Every refusal is an :class:`~nmthpo.errors.InputValueError` of one line that names the address,
what answered there (nothing, something that is not Dask, a Dask worker, or silence until the
timeout) and the fix. ``distributed`` is imported only by step 3, so a malformed address is
refused without it.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.parse
from typing import Any

from nmthpo.errors import InputValueError

__all__ = ["TIMEOUT_S", "check_scheduler", "parse_scheduler_address"]

#: Seconds a scheduler has to accept the connection and answer the Dask protocol.
TIMEOUT_S = 3.0
_SCHEMES = ("tcp", "tls")
#: ``distributed``'s in-process transport: a ``LocalCluster(processes=False)`` of this process.
_INPROC = "inproc"


def _fix(option: str) -> str:
    drop = "drop --scheduler" if option.startswith("--") else "pass scheduler=None"
    jobs = "--jobs N" if option.startswith("--") else "jobs=N"
    return (
        f"start a scheduler (`dask scheduler`, then `dask worker ADDRESS`) and give its address, "
        f"or {drop} to run on this machine ({jobs})"
    )


def parse_scheduler_address(
    address: str, option: str = "scheduler", in_process: bool = True
) -> tuple[str, str, int]:
    """The ``(scheme, host, port)`` of a scheduler address, or an :class:`InputValueError`.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT``, ``tls://HOST:PORT`` or ``HOST:PORT`` (read as ``tcp://``); with
        ``in_process``, also ``inproc://...`` (a ``LocalCluster(processes=False)`` of this
        process: ``("inproc", address, 0)``).
    option : str
        How the caller names the argument in messages (``"--scheduler"``, ``"scheduler"``).
    in_process : bool
        Accept ``inproc://`` addresses (the Python API; a new process, as the command line
        starts, cannot reach them).

    Returns
    -------
    tuple of (str, str, int)
    """
    if not isinstance(address, str) or not address.strip():
        raise InputValueError(
            f"{option} {address!r}: expected an address such as tcp://127.0.0.1:8786"
        )
    if address.startswith(f"{_INPROC}://"):
        if in_process:
            return _INPROC, address, 0
        raise InputValueError(
            f"{option} {address}: an in-process address (LocalCluster(processes=False)) is "
            "reachable only from the process that started the cluster; start a scheduler "
            "(`dask scheduler`) and give its tcp://HOST:PORT"
        )
    try:
        url = urllib.parse.urlsplit(address if "://" in address else f"tcp://{address}")
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        raise InputValueError(
            f"{option} {address}: not an address ({exc}); give tcp://HOST:PORT "
            "(e.g. tcp://127.0.0.1:8786 or tcp://[::1]:8786)"
        ) from None
    if url.scheme not in _SCHEMES:
        raise InputValueError(
            f"{option} {address}: unsupported protocol {url.scheme!r}; give tcp://HOST:PORT "
            "(or tls://HOST:PORT)"
        )
    try:
        host, port = url.hostname, url.port
    except ValueError:
        host, port = None, None
    if not host or port is None or url.path not in ("", "/"):
        raise InputValueError(
            f"{option} {address}: expected tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)"
        )
    return url.scheme, host, port


def _tcp_probe(address: str, host: str, port: int, timeout: float, option: str) -> None:
    """A TCP connection to ``host:port`` within ``timeout`` (refusals name what happened)."""
    fix = _fix(option)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except socket.gaierror:
        raise InputValueError(
            f"{option} {address}: cannot resolve host {host!r}; check the address, or {fix}"
        ) from None
    except TimeoutError:
        raise InputValueError(
            f"{option} {address}: nothing answered within {timeout:g} s (no TCP connection); "
            f"check that the scheduler runs and the port is open, or {fix}"
        ) from None
    except OSError as exc:
        raise InputValueError(
            f"{option} {address}: no Dask scheduler there (nothing accepts connections: "
            f"{exc.strerror or exc}); {fix}"
        ) from None


async def _identity(url: str, timeout: float) -> Any:
    """Connect with ``distributed`` (handshake), ask ``identity``, return the reply."""
    import asyncio

    from distributed.comm import connect
    from distributed.security import Security

    args = Security().get_connection_args("client")  # tls:// reads Dask's TLS configuration

    async def talk() -> Any:
        comm = await connect(url, timeout=timeout, **args)
        try:
            await comm.write({"op": "identity", "reply": True, "close": True})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(talk(), timeout)


def _in_fresh_loop(url: str, timeout: float) -> tuple[str, Any]:
    """Run :func:`_identity` on a new event loop in its own thread: ``("ok", reply)``,
    ``("timeout", None)`` or ``("error", exception)``."""
    import asyncio

    out: list[tuple[str, Any]] = []

    def target() -> None:
        try:
            out.append(("ok", asyncio.run(_identity(url, timeout))))
        except TimeoutError:
            out.append(("timeout", None))
        except BaseException as exc:  # anything the peer's bytes make distributed raise
            out.append(("error", exc))

    thread = threading.Thread(target=target, name="nmthpo-scheduler-check", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    return out[0] if out else ("timeout", None)


def _failure(exc: BaseException) -> str:
    """What a failed Dask exchange says about the peer, in a few words."""
    if isinstance(exc, OSError):  # distributed's CommClosedError, a reset connection
        return "it closed the connection without a Dask answer"
    if isinstance(exc, MemoryError):  # a frame header read from non-Dask bytes
        return "it sent bytes that are not Dask messages"
    detail = str(exc).strip().splitlines()[0][:100] if str(exc).strip() else ""
    return f"it sent what Dask cannot read ({type(exc).__name__}{': ' + detail if detail else ''})"


def check_scheduler(
    address: str,
    timeout: float = TIMEOUT_S,
    option: str = "scheduler",
    in_process: bool = True,
) -> dict[str, Any]:
    """Check that a Dask scheduler at ``address`` answers Dask's protocol within ``timeout``.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT``, ``tls://HOST:PORT``, ``HOST:PORT``, or (``in_process``) the
        ``inproc://`` address of a ``LocalCluster(processes=False)`` of this process.
    timeout : float
        Seconds for the whole check: the TCP connection, importing ``distributed``, the
        handshake and the ``identity`` reply (default :data:`TIMEOUT_S`; the exchange gets
        at least one second of it).
    option : str
        How messages name the argument (the command line passes ``"--scheduler"``).
    in_process : bool
        Accept ``inproc://`` addresses (the command line passes ``False``).

    Returns
    -------
    dict
        The scheduler's ``identity`` reply (``type``, ``id``, ``address``, ``workers``, ...).

    Raises
    ------
    nmthpo.errors.InputValueError
        A malformed address, a host that does not resolve, a port where nothing accepts
        connections, a peer that is not a Dask scheduler (silent, garbage, another service, a
        Dask worker), or ``distributed`` not installed; one line naming the address, what
        answered and the fix.
    """
    scheme, host, port = parse_scheduler_address(address, option, in_process)
    fix = _fix(option)
    start = time.monotonic()
    if scheme == _INPROC:
        url = address
    else:
        url = f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"
        _tcp_probe(address, host, port, timeout, option)
    try:
        import distributed.comm  # noqa: F401
        import distributed.security  # noqa: F401
    except ImportError:
        raise InputValueError(
            f"{option} {address}: running on a Dask cluster needs the 'distributed' package; "
            "pip install distributed"
        ) from None
    # the whole check within ``timeout`` (importing distributed included), but at least a
    # second for the exchange itself (a scheduler answers in milliseconds)
    left = max(timeout - (time.monotonic() - start), min(1.0, timeout))
    status, value = _in_fresh_loop(url, left)
    if status == "timeout":
        raise InputValueError(
            f"{option} {address}: accepted a connection but gave no Dask answer within "
            f"{timeout:g} s (not a Dask scheduler, or an overloaded one); check the address "
            f"and port (a scheduler listens on 8786 by default), or {fix}"
        )
    if status == "error":
        raise InputValueError(
            f"{option} {address}: not a Dask scheduler ({_failure(value)}); check the address "
            f"and port (a scheduler listens on 8786 by default; its dashboard, 8787, is not "
            f"it), or {fix}"
        )
    kind = value.get("type") if isinstance(value, dict) else None
    if kind != "Scheduler":
        seen = f"a Dask {kind}" if isinstance(kind, str) else "a Dask server of unknown kind"
        raise InputValueError(
            f"{option} {address}: {seen} answered, not a scheduler; give the scheduler's "
            f"address (`dask scheduler` prints it; workers are started with it), or {fix}"
        )
    return dict(value)
