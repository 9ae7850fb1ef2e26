#!/usr/bin/env python3
"""A client of `handoff-fsm serve`, with the Python standard library only.

    from handoff_client import Client
    c = Client()                                   # the service's default socket
    d = c.dispatch(target="%3", socket="agents", role="analyst",
                   workdir="/home/me/proj", prompt="Summarise the design")
    print(d["exit"], d["content"])

Or from a shell (the same exit codes as `handoff-fsm send`):

    python3 handoff_client.py --target %3 --socket agents --role analyst \\
        --workdir ~/proj --prompt "Summarise the design"
"""

import argparse
import http.client
import json
import os
import socket
import sys
import urllib.parse


def default_socket():
    """The socket `handoff-fsm serve` listens on when none is named."""
    run = os.environ.get("XDG_RUNTIME_DIR")
    if run and os.path.isabs(run):
        return os.path.join(run, "handoff-fsm", "serve.sock")
    import tempfile
    return os.path.join(tempfile.gettempdir(), "handoff-fsm-%d" % os.getuid(), "serve.sock")


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("handoff-fsm", timeout=timeout)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self._path)
        self.sock = s


class ServiceError(Exception):
    """An answer other than 2xx: status is the HTTP code, body the JSON
    object (error, and field for a 400, holder for a 409)."""

    def __init__(self, status, body):
        super().__init__("%s (HTTP %d)" % (body.get("error", "?"), status))
        self.status = status
        self.body = body


class Client:
    """The service at a unix socket (address "unix:PATH" or a path) or a
    TCP address ("tcp:127.0.0.1:PORT", with token)."""

    def __init__(self, address=None, token=None, timeout=120):
        address = address or os.environ.get("HANDOFF_SERVER") or default_socket()
        if address.startswith("unix:"):
            address = address[len("unix:"):]
        self._address = address
        self._token = token or os.environ.get("HANDOFF_TOKEN")
        self._timeout = timeout

    def _connection(self, timeout=None):
        timeout = timeout or self._timeout
        if self._address.startswith("tcp:"):
            host, port = self._address[len("tcp:"):].rsplit(":", 1)
            return http.client.HTTPConnection(host, int(port), timeout=timeout)
        return _UnixConnection(self._address, timeout)

    def _request(self, method, path, body=None, timeout=None):
        conn = self._connection(timeout)
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            payload = json.loads(resp.read() or b"{}")
        finally:
            conn.close()
        if resp.status // 100 != 2:
            raise ServiceError(resp.status, payload)
        return payload

    def submit(self, **fields):
        """POST /v1/dispatches: target, socket or socket_path, role, workdir
        (absolute), prompt, provider, wait_slot, config (poll, idle_grace,
        response_timeout in seconds, strict, ...). Returns the new dispatch."""
        return self._request("POST", "/v1/dispatches", fields)

    def get(self, dispatch_id, wait=None):
        """GET /v1/dispatches/{id}; with wait (seconds) the service answers
        once the dispatch is over or the time has passed."""
        path = "/v1/dispatches/" + urllib.parse.quote(dispatch_id)
        timeout = None
        if wait:
            path += "?wait=%gs" % wait
            timeout = wait + 30
        return self._request("GET", path, timeout=timeout)

    def wait(self, dispatch_id):
        """The dispatch, once it is over."""
        while True:
            d = self.get(dispatch_id, wait=60)
            if d.get("final"):
                return d

    def dispatch(self, **fields):
        """Submit and wait: the final dispatch (content, exit, outcome, ...)."""
        return self.wait(self.submit(**fields)["id"])

    def list(self, **filters):
        """GET /v1/dispatches: role, state (a state, running or final),
        since (RFC 3339 or a duration such as 24h), limit."""
        q = urllib.parse.urlencode({k: v for k, v in filters.items() if v is not None})
        return self._request("GET", "/v1/dispatches?" + q)["dispatches"]

    def cancel(self, dispatch_id):
        """DELETE /v1/dispatches/{id}: the cancelled dispatch, once it is over
        (whatever the agent wrote is archived)."""
        return self._request("DELETE", "/v1/dispatches/" + urllib.parse.quote(dispatch_id))

    def panes(self, socket_name=None, socket_path=None):
        """GET /v1/panes: the board of a tmux server."""
        q = urllib.parse.urlencode({k: v for k, v in (("socket", socket_name), ("socket_path", socket_path)) if v})
        return self._request("GET", "/v1/panes?" + q)["panes"]

    def events(self, dispatch_id=None):
        """GET /v1/events: yields every event (a dict per line) as it happens."""
        conn = self._connection(timeout=None)
        path = "/v1/events"
        if dispatch_id:
            path += "?id=" + urllib.parse.quote(dispatch_id)
        headers = {"Authorization": "Bearer " + self._token} if self._token else {}
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            raise ServiceError(resp.status, {"error": resp.reason})
        try:
            for line in resp:
                line = line.strip()
                if line:
                    yield json.loads(line)
        finally:
            conn.close()


def main(argv=None):
    p = argparse.ArgumentParser(description="Dispatch a prompt through handoff-fsm serve; "
                                "prints the response and exits as handoff-fsm send does.")
    p.add_argument("--server", help="unix:PATH or tcp:HOST:PORT (default: HANDOFF_SERVER or the default socket)")
    p.add_argument("--target", required=True)
    p.add_argument("--socket")
    p.add_argument("--socket-path")
    p.add_argument("--role", required=True)
    p.add_argument("--workdir", default=".")
    p.add_argument("--prompt", required=True)
    p.add_argument("--provider")
    p.add_argument("--poll", type=float)
    p.add_argument("--idle-grace", type=float)
    p.add_argument("--timeout", type=float)
    args = p.parse_args(argv)
    config = {k: v for k, v in (("poll", args.poll), ("idle_grace", args.idle_grace),
                                ("response_timeout", args.timeout)) if v is not None}
    fields = {"target": args.target, "role": args.role, "workdir": os.path.abspath(args.workdir),
              "prompt": args.prompt, "config": config}
    for k, v in (("socket", args.socket), ("socket_path", args.socket_path), ("provider", args.provider)):
        if v:
            fields[k] = v
    client = Client(args.server)
    try:
        d = client.dispatch(**fields)
    except ServiceError as e:
        print("handoff_client: %s" % e, file=sys.stderr)
        return 2 if e.status == 400 else 1
    except OSError as e:
        print("handoff_client: the service: %s" % e, file=sys.stderr)
        return 1
    if d.get("outcome") == "done":
        content = d.get("content", "")
        sys.stdout.write(content if content.endswith("\n") else content + "\n")
    else:
        print("handoff_client: %s: %s" % (d.get("outcome"), d.get("error", "")), file=sys.stderr)
    return d.get("exit", 1)


if __name__ == "__main__":
    sys.exit(main())
