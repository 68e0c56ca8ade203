"""A tiny stdio MCP server for the proxy tests (tests/proxy_stdio.rs).

Reads one JSON-RPC message per line from stdin. For the k-th request it writes the k-th line
of --script (with the placeholder ID replaced by the request's id), or
{"jsonrpc":"2.0","id":ID,"result":{}} when there is no script (an `initialize` gets an
`InitializeResult` with the protocol version it asked for). Notifications get no answer.

  --record PATH   append every byte read from stdin to PATH (unchanged)
  --stderr TEXT   write TEXT to stderr at start
  --exit N        exit with status N at EOF
  --hang          after EOF, sleep instead of exiting (shutdown tests)
  --ignore-term   ignore SIGTERM (shutdown tests: only SIGKILL ends it)
  --eof-mark PATH write "eof" to PATH when stdin reaches EOF
  --exit-after N  exit (with --exit's status) after answering N requests, stdin still open
  --on-start PATH write the lines of PATH to stdout at start (server-initiated traffic)
  --close-stdout  after --on-start, close stdout (fd 1 becomes /dev/null) and go on reading
  --stall SECS    after --on-start, sleep SECS before reading stdin (a server not reading)
  --heartbeat S   after EOF, write a notification every S seconds forever (instead of exiting)
"""
import json
import os
import signal
import sys
import time

args = sys.argv[1:]
opts = {}
flags = set()
i = 0
while i < len(args):
    a = args[i]
    if a in ("--hang", "--ignore-term", "--close-stdout"):
        flags.add(a)
        i += 1
    else:
        opts[a] = args[i + 1]
        i += 2
if "--ignore-term" in flags:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

out = sys.stdout.buffer
if "--stderr" in opts:
    sys.stderr.write(opts["--stderr"])
    sys.stderr.flush()
script = []
if "--script" in opts:
    with open(opts["--script"], "rb") as f:
        script = f.read().split(b"\n")
if "--on-start" in opts:
    with open(opts["--on-start"], "rb") as f:
        out.write(f.read())
    out.flush()
if "--close-stdout" in flags:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
if "--stall" in opts:
    time.sleep(float(opts["--stall"]))
record = open(opts["--record"], "ab") if "--record" in opts else None

n = 0
for line in sys.stdin.buffer:
    if record:
        record.write(line)
        record.flush()
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
        continue
    rid = json.dumps(msg["id"]).encode()
    if n < len(script) and script[n]:
        reply = script[n].replace(b"ID", rid)
    elif msg.get("method") == "initialize":
        # The members an `InitializeResult` requires (the proxy checks answered results).
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {},
            "serverInfo": {"name": "fake", "version": "1"},
        }
        reply = b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + json.dumps(result).encode() + b"}"
    else:
        reply = b'{"jsonrpc":"2.0","id":' + rid + b',"result":{}}'
    n += 1
    out.write(reply + b"\n")
    out.flush()
    if "--exit-after" in opts and n >= int(opts["--exit-after"]):
        sys.exit(int(opts.get("--exit", "0")))

if "--eof-mark" in opts:
    with open(opts["--eof-mark"], "w") as f:
        f.write("eof")
if "--heartbeat" in opts:
    while True:
        out.write(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"beat"}}\n')
        out.flush()
        time.sleep(float(opts["--heartbeat"]))
if "--hang" in flags:
    time.sleep(3600)
sys.exit(int(opts.get("--exit", "0")))
