#!/usr/bin/env python3
"""bench/attack.py [--fgrun PATH] [--port N] [--slow N] [--connections N] -- `fgrun serve` under
attack on loopback, at full scale (the fast versions are Tests/ImageServerTests/HostileClientTests):

  slowloris    --slow clients (default 1000) each send a header line every second and never end
               their head; meanwhile /health is asked every 0.2 s from a fresh connection. Reports
               /health's median and worst latency and status, and how many slow clients the
               server closed, and when (the server runs with --idle-timeout, default 5; 0 leaves
               the server's default, for builds without the flag).
  connections  --connections clients (default 10000; the descriptor limit is raised to its hard
               limit) connect and stay idle; then /health from one more. Reports how many
               connected, /health's status and latency, and the server's RSS before and after.
               The server runs with --idle-timeout 300 (all stay open) and, when given,
               --max-connections (then /health past it must be 503).
  body         a request declaring a 1 GiB body, then the body streamed: the status, the time to
               it, and how much of the body the server took before closing.
  url          a request whose URL is 1 MiB: the status (or reset) and the time to it.
  signature    a signing server (--key/--salt) asked --samples times (default 2000) each, interleaved
               on one keep-alive connection, for a URL whose signature differs from the right one
               in its first byte and in its last: the time to each 403, median and 10th percentile.
               A compare that stopped at the first differing byte would answer the first faster;
               over loopback HTTP the difference it makes (nanoseconds) is far below the noise, so
               this bounds what a brute-force client can measure, it does not prove the compare.

Each attack starts a server of its own (`fgrun serve --allow-unsigned`, nothing to serve) and ends
with its RSS. Prints a Markdown table; quote the machine's load with it.
"""
import argparse
import base64
import hashlib
import hmac
import http.client
import os
import resource
import signal
import socket
import statistics
import subprocess
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


class Server:
    def __init__(self, fgrun, port, *flags, signed=False):
        self.port = port
        self.process = subprocess.Popen(
            [fgrun, "serve", *([] if signed else ["--allow-unsigned"]), "--bind", f"127.0.0.1:{port}", *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                if health(port)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit("attack.py: the server did not start")

    def stop(self):
        alive = self.process.poll() is None
        rss = rss_mb(self.process.pid) if alive else 0.0
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        return alive, rss


def health(port, timeout=10):
    """(status, seconds) of GET /health on a fresh connection; status 0 when refused or reset."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=timeout) as r:
            return r.status, time.monotonic() - start
    except urllib.error.HTTPError as e:
        return e.code, time.monotonic() - start
    except (OSError, urllib.error.URLError):
        return 0, time.monotonic() - start


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
    return s


def slowloris(args):
    server = Server(args.fgrun, args.port, *(["--idle-timeout", str(args.idle_timeout)] if args.idle_timeout else []))
    start = time.monotonic()
    clients = []
    for _ in range(args.slow):
        s = connect(args.port)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\n")
        s.setblocking(False)
        clients.append(s)
    closed_at = {}
    latencies, statuses = [], []
    deadline = start + 15
    next_line = time.monotonic() + 1
    while time.monotonic() < deadline:
        status, seconds = health(args.port)
        statuses.append(status)
        latencies.append(seconds)
        if time.monotonic() >= next_line:
            next_line += 1
            for i, s in enumerate(clients):
                if i in closed_at:
                    continue
                try:
                    if s.recv(4096) == b"":
                        closed_at[i] = time.monotonic() - start
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    closed_at[i] = time.monotonic() - start
                    continue
                try:
                    s.send(b"X-Slow: a\r\n")
                except OSError:
                    closed_at[i] = time.monotonic() - start
        time.sleep(0.2)
    for s in clients:
        s.close()
    alive, rss = server.stop()
    times = sorted(closed_at.values())
    when = f"median {statistics.median(times):.1f} s, last {times[-1]:.1f} s" if times else "-"
    ok = sum(1 for s in statuses if s == 200)
    return (f"slowloris: {args.slow} clients, a header line a second, 15 s",
            f"{len(times)} of {args.slow} closed by the server ({when}); /health {ok}/{len(statuses)} 200, "
            f"median {statistics.median(latencies) * 1000:.1f} ms, worst {max(latencies) * 1000:.0f} ms",
            alive, rss)


def connections(args):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    flags = ["--idle-timeout", "300"] if args.idle_timeout else []
    if args.max_connections:
        flags += ["--max-connections", str(args.max_connections)]
    server = Server(args.fgrun, args.port, *flags)
    before = rss_mb(server.process.pid)
    clients, failures = [], 0
    start = time.monotonic()
    for _ in range(args.connections):
        try:
            clients.append(connect(args.port))
        except OSError:
            failures += 1
    opened = time.monotonic() - start
    time.sleep(1)
    status, seconds = health(args.port)
    during = rss_mb(server.process.pid)
    for s in clients:
        s.close()
    time.sleep(1)
    after_status, _ = health(args.port)
    alive, rss = server.stop()
    limit = f", --max-connections {args.max_connections}" if args.max_connections else ""
    return (f"{args.connections} idle connections (client descriptor limit {hard}{limit})",
            f"{len(clients)} connected in {opened:.1f} s, {failures} failed; /health meanwhile {status} in "
            f"{seconds * 1000:.0f} ms, after they close {after_status}; RSS {before:.0f} -> {during:.0f} MB",
            alive, rss)


def body(args):
    server = Server(args.fgrun, args.port)
    s = connect(args.port)
    start = time.monotonic()
    s.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\nContent-Length: 1073741824\r\n\r\n")
    sent, answer, chunk = 0, b"", b"\0" * 65536
    s.settimeout(0.001)
    answered_at = None
    while sent < 1 << 30 and time.monotonic() - start < 60:
        try:
            sent += s.send(chunk)
        except socket.timeout:
            pass
        except OSError:
            break
        try:
            data = s.recv(65536)
            if data == b"":
                break
            if not answer:
                answered_at = time.monotonic() - start
            answer += data
        except socket.timeout:
            pass
        except OSError:
            break
    total = time.monotonic() - start
    s.close()
    alive, rss = server.stop()
    status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1") else "none"
    at = f"{answered_at * 1000:.0f} ms" if answered_at is not None else "-"
    return ("a 1 GiB request body, streamed",
            f"{status} after {at}; connection closed after {sent / 2**20:.1f} MiB sent (of 1024) in {total:.1f} s",
            alive, rss)


def url(args):
    server = Server(args.fgrun, args.port)
    s = connect(args.port)
    start = time.monotonic()
    try:
        s.sendall(b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: a\r\n\r\n")
    except OSError:
        pass
    s.settimeout(5)
    try:
        answer = s.recv(4096)
    except OSError as e:
        answer = f"reset ({e.__class__.__name__})".encode()
    took = time.monotonic() - start
    s.close()
    status, _ = health(args.port)
    alive, rss = server.stop()
    return ("a 1 MiB URL", f"{answer.splitlines()[0].decode(errors='replace') if answer else 'closed'} in {took * 1000:.0f} ms; "
            f"/health after {status}", alive, rss)


def signature(args):
    key, salt = "736563726574", "68656C6C6F"
    server = Server(args.fgrun, args.port, "--key", key, "--salt", salt, signed=True)
    path = "/rs:fit:100:100/plain/local:///photo.jpg"
    digest = hmac.new(bytes.fromhex(key), bytes.fromhex(salt) + path.encode(), hashlib.sha256).digest()
    wrong = {"first": bytes([digest[0] ^ 1]) + digest[1:], "last": digest[:-1] + bytes([digest[-1] ^ 1])}
    urls = {k: "/" + base64.urlsafe_b64encode(d).rstrip(b"=").decode() + path for k, d in wrong.items()}
    connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=10)
    times = {k: [] for k in urls}
    statuses = set()
    for i in range(2 * args.samples):
        which = "first" if i % 2 == 0 else "last"
        start = time.perf_counter()
        connection.request("GET", urls[which])
        response = connection.getresponse()
        response.read()
        times[which].append(time.perf_counter() - start)
        statuses.add(response.status)
    connection.close()
    alive, rss = server.stop()

    def summary(values):
        values = sorted(values)
        return f"median {statistics.median(values) * 1e6:.0f} µs, 10th percentile {values[len(values) // 10] * 1e6:.0f} µs"
    first, last = statistics.median(times["first"]), statistics.median(times["last"])
    return (f"{args.samples} wrong signatures each, interleaved",
            f"statuses {sorted(statuses)}; first byte wrong: {summary(times['first'])}; last byte wrong: "
            f"{summary(times['last'])}; medians differ by {(last - first) * 1e6:+.1f} µs", alive, rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fgrun", default=os.path.join(HERE, "..", ".build", "release", "fgrun"))
    parser.add_argument("--port", type=int, default=18490)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--idle-timeout", type=float, default=5)
    parser.add_argument("--max-connections", type=int, default=0)
    parser.add_argument("--connections", type=int, default=10000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("attacks", nargs="*", default=["slowloris", "connections", "body", "url"])
    args = parser.parse_args()
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"# fgrun serve under attack ({args.fgrun}), {os.cpu_count()} cores, load {load}\n")
    print("| attack | result | server alive | server RSS at the end |")
    print("|---|---|---|---|")
    for name in args.attacks:
        what, result, alive, rss = {"slowloris": slowloris, "connections": connections, "body": body, "url": url, "signature": signature}[name](args)
        print(f"| {what} | {result} | {'yes' if alive else 'NO'} | {rss:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
