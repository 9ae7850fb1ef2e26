"""Checks handoff_client.py against a live service (run by client_test.go):
python3 client_check.py SERVER TMUX_SOCKET PANE WORKDIR"""

import sys
import threading

from handoff_client import Client, ServiceError

server, tmux_socket, pane, workdir = sys.argv[1:5]
c = Client(server)
quick = {"poll": 0.25, "idle_grace": 3, "response_timeout": 120}

# Bad input: a 400 naming the field.
try:
    c.submit(target=pane, socket=tmux_socket, role="analyst", workdir="relative", prompt="x")
    sys.exit("a relative workdir was accepted")
except ServiceError as e:
    assert e.status == 400 and e.body["field"] == "workdir", e.body

# The event stream, read while a dispatch runs.
seen = []
def read_events():
    for ev in c.events():
        seen.append(ev)
        if ev["type"] == "finished":
            return
reader = threading.Thread(target=read_events, daemon=True)
reader.start()

d = c.submit(target=pane, socket=tmux_socket, role="tester", workdir=workdir,
             prompt="from python", config=quick)
assert d["id"] and not d["final"], d
# A second one to the same slot: 409 with the holder.
try:
    c.submit(target=pane, socket=tmux_socket, role="tester", workdir=workdir, prompt="again", config=quick)
    sys.exit("a busy slot was accepted")
except ServiceError as e:
    assert e.status == 409 and e.body["holder"]["id"] == d["id"], e.body
final = c.wait(d["id"])
assert final["outcome"] == "done" and final["exit"] == 0 and final["content"] == "from python\n", final
reader.join(30)
types = [ev["type"] for ev in seen if ev.get("id") == d["id"]]
assert types[0] == "accepted" and types[-1] == "finished" and "transition" in types, types

listed = c.list(role="tester", state="final")
assert [x["id"] for x in listed] == [d["id"]], listed
assert any(p["pane"] == pane for p in c.panes(socket_name=tmux_socket)), "the board has no such pane"
print("ok")
