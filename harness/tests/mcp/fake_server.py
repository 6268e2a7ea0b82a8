"""A misbehaving MCP server for harness/tests/mcp_run.rs (Python 3, standard library only).

Usage: fake_server.py MODE CONFORM ROOT [MARKER]

It relays newline-delimited JSON-RPC between its client and a real `CONFORM mcp --root ROOT`,
changing what MODE says:
- plant: tools/list serves web_search with `count`'s maximum 21 instead of 20, and every
  web_fetch refusal's text ends with " (planted)";
- bound: web_search's calls behave as if `count`'s maximum were 21: a count of 21 loses its
  issue from the refusal text, and a refusal left without issues is a plain result;
- silent: never answers anything (initialize included), and sleeps;
- crash: the first tools/call of work_item_close that reaches any process started with this
  MARKER file absent creates the file and exits without answering (later processes relay);
- missing: tools/list leaves web_fetch out;
- not-object: tools/list gives web_search an inputSchema that is a string, not an object;
- notify: every answer comes after a notification nobody asked for (a log message);
- list-error: tools/list is answered with a JSON-RPC error.
"""

import json
import os
import subprocess
import sys
import time


def main():
    mode, conform, root = sys.argv[1:4]
    marker = sys.argv[4] if len(sys.argv) > 4 else None
    if mode == "silent":
        for _ in sys.stdin:
            pass
        time.sleep(3600)
        return
    server = subprocess.Popen(
        [conform, "mcp", "--root", root],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="surrogatepass",
    )
    pending = {}
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except RecursionError:
            # Nested deeper than Python's parser goes (the deep vectors): relayed as it is.
            server.stdin.write(line)
            server.stdin.flush()
            sys.stdout.write(server.stdout.readline())
            sys.stdout.flush()
            continue
        method = message.get("method")
        if mode == "crash" and method == "tools/call":
            if message["params"]["name"] == "work_item_close" and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)
        server.stdin.write(line)
        server.stdin.flush()
        if "id" not in message:
            continue
        pending[message["id"]] = message
        answer = json.loads(server.stdout.readline())
        asked = pending.pop(answer.get("id"), {})
        if mode == "plant":
            change(asked, answer)
        if mode == "bound":
            bound(asked, answer)
        if asked.get("method") == "tools/list":
            answer = listing(mode, answer)
        if mode == "notify":
            notice = {"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "unasked"}}
            sys.stdout.write(json.dumps(notice) + "\n")
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def listing(mode, answer):
    """The tools/list answer as MODE has it."""
    tools = answer.get("result", {}).get("tools", [])
    if mode == "missing":
        answer["result"]["tools"] = [t for t in tools if t["name"] != "web_fetch"]
    if mode == "not-object":
        for tool in tools:
            if tool["name"] == "web_search":
                tool["inputSchema"] = "an object, really"
    if mode == "list-error":
        return {"jsonrpc": "2.0", "id": answer.get("id"),
                "error": {"code": -32603, "message": "the tools are out to lunch"}}
    return answer


def change(asked, answer):
    result = answer.get("result")
    if result is None:
        return
    if asked.get("method") == "tools/list":
        for tool in result["tools"]:
            if tool["name"] == "web_search":
                tool["inputSchema"]["properties"]["count"]["maximum"] = 21
    if asked.get("method") == "tools/call" and asked["params"]["name"] == "web_fetch":
        if result.get("isError"):
            result["content"][0]["text"] += " (planted)"


def bound(asked, answer):
    result = answer.get("result")
    if result is None or asked.get("method") != "tools/call":
        return
    params = asked["params"]
    arguments = params.get("arguments") or {}
    if params["name"] != "web_search" or not result.get("isError"):
        return
    count = arguments.get("count")
    if type(count) not in (int, float) or count != 21:
        return
    head = "INVALID_INPUT: "
    text = result["content"][0]["text"]
    parts = [p for p in text[len(head):].split(" | ") if not p.startswith("count: ")]
    if parts:
        result["content"][0]["text"] = head + " | ".join(parts)
    else:
        result["content"] = [{"type": "text", "text": "planted: searched"}]
        result["isError"] = False


main()
