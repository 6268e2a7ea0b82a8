#!/usr/bin/env python3
"""An example third-party implementation ("peer") of three vvoc tool contracts.

It speaks the JSON Lines peer protocol of the conformance runner (see the project's
interfaces description, section 4) on stdin/stdout and implements three of the nine tools of
contract 1.6.0: ``web_search``, ``web_fetch`` and ``work_item_list``. Standard library only,
Python 3.11.

    conform run --peer "python3 harness/peers/python/vvoc_peer.py"

It is meant to be read: every rule is a small function named after the behaviour it follows
(section numbers refer to behaviour.md). Where it knowingly differs from the reference (the
URL rule is approximated with ``urllib.parse`` instead of a WHATWG URL parser), the comments say
so; harness/peers/python/known-failures.json lists the vectors that do not match.

Diagnostics go to stderr only; stdout carries protocol messages and nothing else.
"""

import encodings.idna
import json
import re
import sys
import urllib.parse

IMPLEMENTATION = {"name": "vvoc-python-example", "version": "0.1.0", "language": "python"}

# ---------------------------------------------------------------------------------------------
# Reading JSON the way the contracts read it (behaviour.md §2.1.3, §6.5)
# ---------------------------------------------------------------------------------------------

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def _is_array_index(name):
    """The canonical decimal form of an integer from 0 to 4294967294 (ASCII digits only)."""
    return _ARRAY_INDEX.fullmatch(name) is not None and int(name) <= 4294967294


def _make_object(pairs):
    """object_pairs_hook: build one JSON object with the member order of §2.1.3.

    A duplicate name keeps the position of its first occurrence and the value of its last one
    (a dict assignment to an existing key does exactly that). Then members whose name is an
    array index move to the front, in ascending numeric order.
    """
    obj = {}
    for name, value in pairs:
        obj[name] = value
    indexes = sorted((n for n in obj if _is_array_index(n)), key=int)
    if not indexes:
        return obj
    ordered = {n: obj[n] for n in indexes}
    ordered.update((n, v) for n, v in obj.items() if n not in ordered)
    return ordered


def _constant(name):
    """parse_constant: Python's json also accepts Infinity/-Infinity/NaN literals."""
    return {"Infinity": float("inf"), "-Infinity": float("-inf")}.get(name, float("nan"))


def parse_json(text):
    # Every JSON number is an IEEE-754 double: parse_int=float makes 9007199254740993 read as
    # 9007199254740992.0, and float('1e400') is already float('inf') (the runner writes an
    # infinite input as 1e400).
    return json.loads(text, object_pairs_hook=_make_object, parse_int=float,
                      parse_float=float, parse_constant=_constant)


def type_name(value):
    """The <R> of "received <R>" (§3.1). bool must be tested before numbers."""
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _Missing:
    """Stands for an absent required member ("received undefined")."""


MISSING = _Missing()

# ---------------------------------------------------------------------------------------------
# Text in UTF-16 code units (§0, §6.1, §6.4)
# ---------------------------------------------------------------------------------------------


def units(s):
    """Length in UTF-16 code units; 'surrogatepass' lets lone surrogates count as one unit."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def truncate(s, n):
    """s itself if at most n units, else its first n-1 units plus '…' (the cut may split a pair,
    leaving a lone high surrogate in the Python string)."""
    raw = s.encode("utf-16-le", "surrogatepass")
    if len(raw) // 2 <= n:
        return s
    return raw[: 2 * (n - 1)].decode("utf-16-le", "surrogatepass") + "\u2026"


_QUOTE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                  "\f": "\\f", "\r": "\\r"}


def json_quote(s):
    """JSON-quote (§6.4): only quotes, backslashes, C0 controls and lone surrogates are escaped."""
    out = []
    for ch in s:
        if ch in _QUOTE_ESCAPES:
            out.append(_QUOTE_ESCAPES[ch])
        elif ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


# ---------------------------------------------------------------------------------------------
# Paths and issues (§1.2, §1.4, §1.5)
# ---------------------------------------------------------------------------------------------


def escape_name(name):
    out = []
    for ch in name:
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04x" % ord(ch))
        elif ch in "\\.[]":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def render_path(segments):
    """Segments are member names (str) and array indexes (int). After each segment, a text of
    120 units or more stops the rendering and is cut to 120 units."""
    text = ""
    for seg in segments:
        if isinstance(seg, int):
            text += "[%d]" % seg
        else:
            text += ("." if text else "") + escape_name(seg)
        if units(text) >= 120:
            return truncate(text, 120)
    return text or "(root)"


def issue(code, path, message, expected=None, received=None):
    """One issue, members in the order code, path, message, expected, received."""
    out = {"code": code, "path": render_path(path), "message": truncate(message, 200)}
    if expected is not None:
        out["expected"] = truncate(expected, 200)
    if received is not None:
        out["received"] = received
    return out


def type_issue(path, expected, value):
    return issue("invalid_type", path, "Invalid input: expected %s, received %s"
                 % (expected, type_name(value)), expected)


# ---------------------------------------------------------------------------------------------
# The length rule after a type failure (§2.1.8), with the small ToNumber it needs
# ---------------------------------------------------------------------------------------------

# The whitespace set of §6.2.
WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
              "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_RADIX = {"0x": ("0123456789abcdefABCDEF", 16), "0o": ("01234567", 8), "0b": ("01", 2)}


def _number_text(x):
    """A number as JavaScript would print it, close enough to be read back by _to_number."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    return repr(x)


def _to_text(value):
    """The text an array element becomes when the array is joined with ','."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join(_to_text(v) for v in value)
    return "[object Object]"


def _to_number(value):
    """The value of an object's `length` member as a number (float('nan') when it is not one)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if value is None:
        return 0.0
    if isinstance(value, float):
        return value
    if isinstance(value, list):
        value = _to_text(value)
    if not isinstance(value, str):
        return float("nan")
    s = value.strip(WHITESPACE)
    if s == "":
        return 0.0
    if _DECIMAL.fullmatch(s):
        return float(s)
    if s in ("Infinity", "+Infinity", "-Infinity"):
        return float("-inf") if s[0] == "-" else float("inf")
    digits, base = _RADIX.get(s[:2].lower(), ("", 0))
    if base and len(s) > 2 and all(c in digits for c in s[2:]):
        return float(int(s[2:], base))
    return float("nan")


def length_rule(value, path, minimum, maximum):
    """After an invalid_type on a string or array node that declares bounds: the wrong-typed
    value's own length is still bounded, when it has one."""
    if isinstance(value, str):
        length, noun = units(value), "string"
    elif isinstance(value, list):
        length, noun = len(value), "array"
    elif isinstance(value, dict) and "length" in value:
        length, noun = _to_number(value["length"]), "unknown"
    else:
        return []  # numbers, booleans, null and absent values have no length

    def wording(op, n):
        if noun == "unknown":
            return "expected unknown to be %s%d" % (op, n)
        return "expected %s to have %s%d %s" % (
            noun, op, n, "characters" if noun == "string" else "items")

    out = []
    # Written as "not within" so that a NaN length fails both bounds.
    if minimum is not None and not length >= minimum:
        out.append(issue("too_small", path, "Too small: " + wording(">=", minimum)))
    if maximum is not None and not length <= maximum:
        out.append(issue("too_big", path, "Too big: " + wording("<=", maximum)))
    return out


# ---------------------------------------------------------------------------------------------
# Node checkers (§2.1.5 - §2.1.7). Each takes (value, path) and returns (issues, output value).
# ---------------------------------------------------------------------------------------------

SAFE = 9007199254740991  # 2^53 - 1


def line_string(value, path):
    """Kind `line` (§4.0): not trimmed, at least 1 unit, no maximum."""
    if not isinstance(value, str):
        return [type_issue(path, "string", value)] + length_rule(value, path, 1, None), None
    if units(value) < 1:
        return [issue("too_small", path, "Too small: expected string to have >=1 characters")], None
    return [], value


def number_node(minimum=None, exclusive_minimum=None, maximum=None, integer=False):
    """An integer or number node with optional bounds (§2.1.6)."""

    def check(value, path):
        if isinstance(value, bool) or not isinstance(value, float):
            return [type_issue(path, "number", value)], None
        if value in (float("inf"), float("-inf")):
            return [issue("invalid_type", path, "Invalid input: expected number, received number",
                          "number", received="Infinity")], None
        out = []
        if integer:
            if value != int(value):
                return [issue("invalid_type", path, "Invalid input: expected int, received number",
                              "int")], None
            if value > SAFE:
                out.append(issue("too_big", path, "Too big: expected int to be <%d" % SAFE))
            elif value < -SAFE:
                out.append(issue("too_small", path, "Too small: expected int to be >-%d" % SAFE))
        # Bounds, lower first. -0.0 compares equal to 0.0, so it fails >=1 and >0.
        if minimum is not None and value < minimum:
            out.append(issue("too_small", path, "Too small: expected number to be >=%d" % minimum))
        if exclusive_minimum is not None and value <= exclusive_minimum:
            out.append(issue("too_small", path,
                             "Too small: expected number to be >%d" % exclusive_minimum))
        if maximum is not None and value > maximum:
            out.append(issue("too_big", path, "Too big: expected number to be <=%d" % maximum))
        return out, value

    return check


def enum_node(*options):
    """Exact, case-sensitive, untrimmed string options; anything else is invalid_value."""
    message = "Invalid option: expected one of " + "|".join('"%s"' % o for o in options)
    expected = " | ".join(json_quote(o) for o in options)

    def check(value, path):
        if isinstance(value, str) and value in options:
            return [], value
        return [issue("invalid_value", path, message, expected)], None

    return check


def boolean_node(value, path):
    if isinstance(value, bool):
        return [], value
    return [type_issue(path, "boolean", value)], None


# ---------------------------------------------------------------------------------------------
# Closed objects and the tools (§2.1.2, §4.2, §4.8, §4.9)
# ---------------------------------------------------------------------------------------------

# A field: (name, checker, required, default). Absent optional fields without a default stay
# absent in the output; NO_DEFAULT marks them.
NO_DEFAULT = object()


def check_object(value, path, fields):
    """Declared fields in declared order, then every undeclared member in member order."""
    if not isinstance(value, dict):
        return [type_issue(path, "object", value)], None
    issues, output = [], {}
    for name, checker, required, default in fields:
        if name in value:
            found, normalized = checker(value[name], path + [name])
            issues += found
            output[name] = normalized
        elif required:
            found, _ = checker(MISSING, path + [name])
            issues += found
        elif default is not NO_DEFAULT:
            output[name] = default
    declared = {f[0] for f in fields}
    for name in value:
        if name not in declared:
            issues.append(issue("unrecognized_keys", path + [name],
                                "unrecognized key " + json_quote(truncate(name, 48)),
                                "a known property of this request object"))
    return issues, output


# --- the URL rule of web_fetch (§5.5) ----------------------------------------------------------
#
# The reference parses with the WHATWG URL Standard. This example does not implement that
# parser: it does the WHATWG pre-processing by hand, splits with urllib.parse.urlsplit and
# checks the host with a few WHATWG host rules. Inputs outside these approximations may differ.

C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
SPECIAL_SCHEMES = ("http", "https", "ftp", "ws", "wss")  # `file` is special too, but lenient
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
FORBIDDEN_DOMAIN = set("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | {chr(c) for c in range(0x20)}
URL_UNPARSABLE = ("invalid_format", "url must be an absolute HTTP or HTTPS URL",
                  "an absolute http(s) URL")


def _ipv4_number(part):
    """A WHATWG IPv4 number (0x hex, leading-0 octal, decimal), or None."""
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if digits == "":
        return 0 if base != 10 else None
    try:
        return int(digits, base) if digits.isascii() and digits.isalnum() else None
    except ValueError:
        return None


def _ipv4_ok(host):
    """Called when the host ends in a number: it must then be a valid IPv4 address."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4 or "" in parts:
        return False
    numbers = [_ipv4_number(p) for p in parts]
    if None in numbers or any(n > 255 for n in numbers[:-1]):
        return False
    return numbers[-1] < 256 ** (5 - len(numbers))


def _ends_in_number(host):
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return (last != "" and last.isascii() and last.isdigit()) or (
        last[:2] in ("0x", "0X") and _ipv4_number(last) is not None)


def _domain_ok(raw_host):
    """Percent-decode, map to ASCII, refuse forbidden code points, then IPv4 if numeric."""
    host = urllib.parse.unquote_to_bytes(raw_host).decode("utf-8", "replace").lower()
    labels = []
    for label in host.split("."):
        if not label.isascii():
            try:  # IDNA 2003 (Python's codec), an approximation of UTS #46
                label = encodings.idna.ToASCII(label).decode("ascii").lower()
            except UnicodeError:
                return False
        if label.startswith("xn--"):
            try:
                if label[4:].encode("ascii").decode("punycode") == "":
                    return False
            except UnicodeError:
                return False
        labels.append(label)
    host = ".".join(labels)
    if host == "" or any(ch in FORBIDDEN_DOMAIN for ch in host):
        return False
    return _ipv4_ok(host) if _ends_in_number(host) else True


def _special_url_ok(scheme, rest):
    """Whether `scheme:rest` parses as a special URL (it needs a valid host)."""
    # In a special URL backslashes act as slashes, and any run of slashes after the scheme
    # is skipped ("http:x", "http:/x" and "http:///x" all have the host x).
    rest = rest.replace("\\", "/").lstrip("/")
    try:
        parts = urllib.parse.urlsplit(scheme + "://" + rest)
        parts.port  # raises ValueError for a non-numeric or out-of-range port
    except ValueError:  # also raised for a bad [IPv6] literal
        return False
    hostinfo = parts.netloc.rpartition("@")[2]
    if hostinfo.startswith("["):
        return True  # urlsplit has validated the IPv6 literal with the ipaddress module
    return _domain_ok(hostinfo.split(":", 1)[0])


def url_rule(url):
    """The branch rule of web_fetch: zero or one issue, never quoting the URL itself."""
    # A URL is read as Unicode scalar values: a lone surrogate becomes U+FFFD.
    s = url.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    s = s.strip(C0_OR_SPACE)
    s = s.replace("\t", "").replace("\n", "").replace("\r", "")
    match = _SCHEME.match(s)
    if not match:  # no scheme: relative references fail without a base URL
        return [issue(URL_UNPARSABLE[0], ["url"], *URL_UNPARSABLE[1:])]
    scheme = match.group()[:-1].lower()
    if scheme in SPECIAL_SCHEMES and not _special_url_ok(scheme, s[match.end():]):
        return [issue(URL_UNPARSABLE[0], ["url"], *URL_UNPARSABLE[1:])]
    if scheme not in ("http", "https"):
        return [issue("invalid_value", ["url"], 'unsupported URL scheme "%s"; only http and '
                      "https are supported" % truncate(scheme, 48), "http or https")]
    return []


# --- the tool table ----------------------------------------------------------------------------

TOOLS = {
    "work_item_list": ([("includeClosed", boolean_node, False, NO_DEFAULT)], None),
    "web_search": ([
        ("query", line_string, True, NO_DEFAULT),
        ("count", number_node(minimum=1, maximum=20, integer=True), False, 8),
        ("freshness", enum_node("day", "week", "month", "year"), False, NO_DEFAULT),
    ], None),
    "web_fetch": ([
        ("url", line_string, True, NO_DEFAULT),
        ("format", enum_node("markdown", "text", "html"), False, "markdown"),
        ("timeout", number_node(exclusive_minimum=0, maximum=120), False, 30),
    ], lambda output: url_rule(output["url"])),
}


def validate(tool, value):
    """Returns ("accept", output) or ("reject", issues) (§2)."""
    fields, branch_rules = TOOLS[tool]
    if not isinstance(value, dict):  # §2.1.1: exactly one root issue
        return "reject", [type_issue([], "object", value)]
    issues, output = check_object(value, [], fields)
    if not issues and branch_rules is not None:
        issues = branch_rules(output)
    if issues:
        return "reject", issues[:8]  # §2.1.11: the cap
    return "accept", output


# ---------------------------------------------------------------------------------------------
# The protocol loop
# ---------------------------------------------------------------------------------------------


def to_json_value(value):
    """Integral doubles are written as integers (1.0 -> 1, -0.0 -> 0) (§1.7)."""
    if isinstance(value, dict):
        return {k: to_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, float) and value == int(value):
        return int(value)
    return value


def send(message):
    # ensure_ascii keeps lone surrogates as \udXXX escapes, so the line is always valid UTF-8.
    sys.stdout.write(json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def answer_check(message):
    seq = to_json_value(message.get("seq"))
    tool = message.get("tool")
    if tool not in TOOLS:
        return {"type": "result", "seq": seq, "error": "tool %r is not implemented" % (tool,)}
    if "input" not in message:
        return {"type": "result", "seq": seq, "error": "the check has no input"}
    try:
        verdict, payload = validate(tool, message["input"])
    except Exception as exc:  # a bug here should not kill the session
        print("vvoc_peer: error on seq %r: %r" % (seq, exc), file=sys.stderr)
        return {"type": "result", "seq": seq, "error": "internal error: %s" % exc}
    return {"type": "result", "seq": seq, verdict: to_json_value(payload)}


def main():
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            message = parse_json(line)
        except ValueError as exc:
            print("vvoc_peer: ignoring a line that is not JSON: %s" % exc, file=sys.stderr)
            continue
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "implementation": IMPLEMENTATION,
                  "tools": ["web_search", "web_fetch", "work_item_list"]})
        elif kind == "check":
            send(answer_check(message))
        elif kind == "bye":
            return 0
        else:
            print("vvoc_peer: ignoring a message of type %r" % (kind,), file=sys.stderr)
    return 0  # end of stdin


if __name__ == "__main__":
    sys.exit(main())
