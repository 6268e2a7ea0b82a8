#!/usr/bin/env python3
"""An example third-party implementation ("peer") of four vvoc tool contracts, and of one editor.

It speaks the JSON Lines peer protocol of the conformance runner (see the project's
interfaces description, sections 4 and 9.2) on stdin/stdout and implements four of the nine tools
of contract 1.6.0: ``web_search``, ``web_fetch``, ``work_item_list`` and ``str_replace_editor``.
It also executes ``str_replace_editor`` on real files (``exec`` messages, the scenarios), as
execution.md §2 describes, and ``web_search`` against the host configuration a web call carries
(execution-web.md §0-§3; ``web_fetch`` is not executed). Standard library only, Python 3.11.

    conform run --peer "python3 harness/peers/python/vvoc_peer.py"

It is meant to be read: every rule is a small function named after the behaviour it follows
(section numbers refer to behaviour.md, or to execution.md where they say so). Where it knowingly
differs from the reference (the URL rule is approximated with ``urllib.parse`` instead of a
WHATWG URL parser), the comments say so; harness/peers/python/known-failures.json lists the
vectors that do not match.

Diagnostics go to stderr only; stdout carries protocol messages and nothing else.
"""

import datetime
import encodings.idna
import errno
import http.client
import json
import os
import re
import socket
import stat
import sys
import time
import urllib.parse
import zlib

IMPLEMENTATION = {"name": "vvoc-python-example", "version": "0.1.0", "language": "python"}

# ---------------------------------------------------------------------------------------------
# Reading JSON the way the contracts read it (behaviour.md §2.1.3, §6.5)
# ---------------------------------------------------------------------------------------------

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")

# Inputs may nest deep (the contract sets no limit; vectors/*/deep-nesting.json go 5,000 levels),
# and the json module's C scanner spends one level of Python's recursion budget (1,000 by
# default) per level of nesting. 20,000 levels still fit in the C stack of the main thread.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


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


def length_rule(value, path, minimum, maximum, exact=False):
    """After an invalid_type on a string or array node that declares bounds: the wrong-typed
    value's own length is still bounded, when it has one. An exact length (minimum == maximum,
    `view_range` only) gives at most one issue: nothing when the length *is* that number, `<=`
    when it converts to a greater number, `>=` otherwise (also when it is not a number)."""
    if isinstance(value, str):
        length, noun = units(value), "string"
    elif isinstance(value, list):
        length, noun = len(value), "array"
    elif isinstance(value, dict) and "length" in value:
        length, noun = _to_number(value["length"]), "unknown"
    else:
        return []  # numbers, booleans, null and absent values have no length
    if exact:
        # The equality does not convert: a `length` member "2", [2] or "0b10" is not the number 2.
        raw = value["length"] if noun == "unknown" else length
        if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw == minimum:
            return []
        if length > maximum:  # False for a length that is not a number
            minimum = None
        else:
            maximum = None
            length = float("nan")  # fails the remaining bound, as "2" or "0b10" must

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


def raw_string(value, path):
    """Kind `raw` (§4.0): any string, kept verbatim, no bounds (so no length rule either)."""
    if not isinstance(value, str):
        return [type_issue(path, "string", value)], None
    return [], value


def integer_pair(value, path):
    """`view_range` (§2.1.4): an array of exactly two integers, each within the safe range. The
    elements are checked first, then the length, even when elements failed."""
    if not isinstance(value, list):
        return [type_issue(path, "array", value)] + length_rule(value, path, 2, 2, exact=True), None
    element = number_node(integer=True)
    issues, output = [], []
    for index, item in enumerate(value):
        found, normalized = element(item, path + [index])
        issues += found
        output.append(normalized)
    if len(value) < 2:
        issues.append(issue("too_small", path, "Too small: expected array to have >=2 items"))
    elif len(value) > 2:
        issues.append(issue("too_big", path, "Too big: expected array to have <=2 items"))
    return issues, output


# ---------------------------------------------------------------------------------------------
# Closed objects and the tools (§2.1.2, §4.2, §4.7, §4.8, §4.9)
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


# --- the branch rules of str_replace_editor (§4.7) ----------------------------------------------

# The fields each command consumes besides `command` and `path`, in declared order.
EDITOR_MATRIX = {"view": ("view_range",), "create": ("file_text",),
                 "str_replace": ("old_str", "new_str"), "insert": ("new_str", "insert_line")}
EDITOR_OPTIONAL = ("file_text", "old_str", "new_str", "insert_line", "view_range")


def editor_rules(output):
    """The rules run in this order; the caller keeps the first 8 issues."""
    command = output["command"]
    consumed = EDITOR_MATRIX[command]
    expected = "only command, path, " + ", ".join(consumed)
    out = [issue("invalid_value", [name], "%s is not consumed by command %s" % (name, command),
                 expected)
           for name in EDITOR_OPTIONAL if name in output and name not in consumed]
    if output["path"].strip(WHITESPACE) == "":  # blank, with the trim set of §6.2
        out.append(issue(
            "missing_value", ["path"], "path must be a non-empty path",
            "a non-empty file or directory path (spaces inside the name are preserved)"))
    if command == "create" and "file_text" not in output:
        out.append(issue("missing_value", ["file_text"],
                         "create requires file_text (an explicitly empty string is allowed)",
                         'a string, including ""'))
    if command == "str_replace":
        if "old_str" not in output:
            out.append(issue("missing_value", ["old_str"], "str_replace requires old_str",
                             "the exact non-empty text to replace"))
        elif output["old_str"] == "":  # whitespace-only is fine: old_str is not trimmed
            out.append(issue("invalid_value", ["old_str"], "old_str must be a non-empty exact "
                             "string", "a non-empty literal string"))
    if command == "insert":
        if "new_str" not in output:
            out.append(issue("missing_value", ["new_str"],
                             "insert requires new_str (an explicitly empty string is allowed)",
                             'a string, including ""'))
        if "insert_line" not in output:
            out.append(issue("missing_value", ["insert_line"],
                             "insert requires an integer insert_line >= 0", "an integer >= 0"))
    if "view_range" in output:  # whatever the command
        # Safe integers after the structural phase; int() also writes -0 as 0.
        start, end = (int(n) for n in output["view_range"])
        if start < 1:
            out.append(issue("too_small", ["view_range"],
                             "view_range start %d must be >= 1" % start, "start >= 1"))
        if end != -1 and end < start:
            out.append(issue("invalid_value", ["view_range"],
                             "view_range end %d must be -1 or >= start %d" % (end, start),
                             "end = -1 or end >= start"))
    return out


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
    "str_replace_editor": ([
        ("command", enum_node("view", "create", "str_replace", "insert"), True, NO_DEFAULT),
        ("path", raw_string, True, NO_DEFAULT),
        ("file_text", raw_string, False, NO_DEFAULT),
        ("old_str", raw_string, False, NO_DEFAULT),
        ("new_str", raw_string, False, NO_DEFAULT),
        ("insert_line", number_node(minimum=0, integer=True), False, NO_DEFAULT),
        ("view_range", integer_pair, False, NO_DEFAULT),
    ], editor_rules),
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


def one_line(issues):
    """The one-line form of a refusal (§1.6): `INVALID_INPUT: ` and the parts joined with ` | `."""
    parts = []
    for found in issues:
        part = found["path"] + ": " + found["message"]
        if found.get("expected"):
            part += "; expected " + found["expected"]
        if "received" in found:
            part += "; received " + found["received"]
        parts.append(truncate(part, 200))
    return truncate("INVALID_INPUT: " + " | ".join(parts), 1800)


# ---------------------------------------------------------------------------------------------
# Executing str_replace_editor (execution.md §0, §2)
# ---------------------------------------------------------------------------------------------
#
# The editor's texts count, cut, search and sort UTF-16 code units (execution.md §0.2), while a
# Python str counts code points. So every text of a call is first turned into a *unit string*: a
# str with one character per UTF-16 unit (an astral character becomes its two surrogates, as
# separate characters). len(), slicing, find(), split() and sorting then work on units. Sending a
# unit string needs no conversion back: json.dumps(ensure_ascii=True) writes the two surrogates
# of a pair as "\ud83d\ude00", which is exactly how it writes the astral character itself.

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogates(match):
    c = ord(match.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def to_units(s):
    """The unit string of s (lone surrogates from JSON escapes are already one unit each)."""
    return _ASTRAL.sub(_surrogates, s)


def utf8(text):
    """The UTF-8 bytes of a unit string: pairs joined again, each lone surrogate as U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")


def decode(data):
    """A file's bytes as a unit string. Python's 'replace' handler writes one U+FFFD per maximal
    ill-formed subsequence, as §0.2 asks; a BOM stays (this is 'utf-8', not 'utf-8-sig')."""
    return to_units(data.decode("utf-8", "replace"))


MAX_VIEW = 16000
CLIPPED = ("<response clipped><NOTE>To save on context only part of this file was been shown to "
           "you. You should retry this tool after you have searched inside the file with `grep -n` "
           "in order to find the line numbers of what you are looking for.</NOTE>")
LISTING_SKIPPED = ("node_modules", "__pycache__")

# The runtime's texts for filesystem failures (§2.8): libuv's error names and descriptions, which
# Node and Bun put in their messages. Other errors fall back to the C library's wording.
LIBUV_ERRORS = {
    errno.ENOENT: "no such file or directory", errno.ENOTDIR: "not a directory",
    errno.EISDIR: "illegal operation on a directory", errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted", errno.EEXIST: "file already exists",
    errno.ENAMETOOLONG: "name too long", errno.ENOSPC: "no space left on device",
    errno.EROFS: "read-only file system", errno.ENOTEMPTY: "directory not empty",
    errno.EBUSY: "resource busy or locked", errno.ELOOP: "too many symbolic links encountered",
    errno.EIO: "i/o error",
}


class Raised(Exception):
    """The call raises (a scenario's `throws`): the filesystem failed (§2.8)."""


class Refused(Exception):
    """The call returns an `Error: ` text."""


def raised(error, syscall, path):
    """`<CODE>: <description>, <syscall> '<path>'` (the path with lone surrogates as U+FFFD).
    A path with a NUL byte, which no system call takes (Python raises ValueError), is an EIO."""
    number = getattr(error, "errno", None) or errno.EIO
    code = errno.errorcode.get(number, "EIO")
    description = LIBUV_ERRORS.get(number) or os.strerror(number).lower()
    shown = utf8(path).decode("utf-8")
    return Raised("%s: %s, %s '%s'" % (code, description, syscall, shown))


def status(os_path):
    """The path's status following symbolic links, or None when it cannot be read (§2.2)."""
    try:
        return os.stat(os_path)
    except (OSError, ValueError):  # ValueError: a NUL inside the path
        return None


def snapshot(st):
    """What freshness compares (§2.1): modification time, and the size of a regular file."""
    return st.st_mtime_ns, st.st_size if stat.S_ISREG(st.st_mode) else 0


def clip(text):
    """A unit string cut to 16,000 units and marked, when it is longer (§2.3 step 10)."""
    return text if len(text) <= MAX_VIEW else text[:MAX_VIEW] + CLIPPED


class Editor:
    """One call of str_replace_editor in a session. `session` maps path strings, as typed, to
    snapshots. Methods return the text of the call, or raise Refused or Raised."""

    def __init__(self, call, session):
        self.call, self.session = call, session
        self.path = call["path"]
        self.os_path = utf8(self.path)  # a bytes path: no file name holds a lone surrogate

    def run(self):
        path = self.path
        if not path.startswith("/"):  # §2.2
            return ("Error: The path %s is not an absolute path, it should start with `/`. "
                    "Maybe you meant /%s?" % (path, path))
        command = self.call["command"]
        if command == "view":
            return self.view()
        if command == "create":
            return self.create()
        return self.edit(self.replace if command == "str_replace" else self.insert)

    # --- helpers shared by the commands ---

    def existing(self):
        st = status(self.os_path)
        if st is None:
            raise Refused("Error: The path %s does not exist. Please provide a valid path."
                          % self.path)
        return st

    def read(self):
        try:
            with open(self.os_path, "rb") as f:
                return decode(f.read())
        except (OSError, ValueError) as exc:
            raise raised(exc, "open", self.path)

    def write(self, text):
        try:
            with open(self.os_path, "wb") as f:
                f.write(utf8(text))
        except (OSError, ValueError) as exc:
            raise raised(exc, "open", self.path)
        st = status(self.os_path)
        if st is not None:  # record the snapshot taken after writing
            self.session[self.path] = snapshot(st)

    # --- view (§2.3, §2.4) ---

    def view(self):
        st = self.existing()
        view_range = self.call.get("view_range")
        if stat.S_ISDIR(st.st_mode):
            if view_range is not None:
                raise Refused("Error: The `view_range` parameter is not allowed when `path` "
                              "points to a directory.")
            return self.listing()
        seen = snapshot(st)  # taken before the file is read
        lines = self.read().split("\n")
        n = len(lines)
        header = ("Here's the content of %s with line numbers (which has a total of %d lines)"
                  % (self.path, n))
        first, last = 1, n
        if view_range is not None:
            a, b = (int(x) for x in view_range)
            if a > n:
                raise Refused("Error: Invalid `view_range`: [%d, %d]. Its first element `%d` "
                              "should be within the range of lines of the file: [1, %d]"
                              % (a, b, a, n))
            if b > n:
                raise Refused("Error: Invalid `view_range`: [%d, %d]. Its second element `%d` "
                              "should be smaller than the number of lines in the file: `%d`"
                              % (a, b, b, n))
            header += " with view_range=[%d, %d]" % (a, b)
            first, last = a, (n if b == -1 else b)
        rows = "".join("%6d  %s\n" % (i, lines[i - 1]) for i in range(first, last + 1))
        text = clip(header + ":\n" + rows)
        self.session[self.path] = seen
        return text

    def listing(self):
        """Two levels, hidden and cache entries skipped, sorted by path in UTF-16 order (§2.4).
        A listing records nothing."""
        rows = [(self.path, "d")]
        try:
            for is_dir, name, entry_path in self.entries(self.os_path):
                shown = self.path + "/" + name
                rows.append((shown, "d" if is_dir else "f"))
                if is_dir:  # the first level is entered, the second is not
                    for inner_is_dir, inner_name, _ in self.entries(entry_path):
                        rows.append((shown + "/" + inner_name, "d" if inner_is_dir else "f"))
        except OSError as exc:
            raise raised(exc, "scandir", self.path)
        rows.sort(key=lambda row: row[0])  # unit strings: code point order is unit order
        body = "".join("%s\t%s\n" % (kind, shown) for shown, kind in rows)
        return ("Here're the files and directories up to 2 levels deep in %s, excluding hidden "
                "items, node_modules, and Python cache directories:\n%s\n"
                % (self.path, clip(body)))

    @staticmethod
    def entries(directory):
        """(is a directory, name as a unit string, path) of the listed entries; a symbolic link
        is never a directory here."""
        out = []
        with os.scandir(directory) as found:
            for entry in found:
                name = decode(entry.name)
                if name.startswith(".") or name in LISTING_SKIPPED:
                    continue
                out.append((entry.is_dir(follow_symlinks=False), name, entry.path))
        return out

    # --- create (§2.5) ---

    def create(self):
        if status(self.os_path) is not None:
            raise Refused("Error: File already exists at: %s. Cannot overwrite files using "
                          "command `create`." % self.path)
        self.write(self.call["file_text"])
        return "New file created successfully at: %s" % self.path

    # --- str_replace and insert (§2.6, §2.7) ---

    def edit(self, change):
        st = self.existing()
        if stat.S_ISDIR(st.st_mode):
            raise Refused("Error: The path %s is a directory and only the `view` command can be "
                          "used on directories" % self.path)
        seen = self.session.get(self.path)
        if seen is not None and seen != snapshot(st):  # drifted; unread and fresh may edit
            raise Refused("Error: The file %s has changed since it was last viewed. Run the view "
                          "command again before editing." % self.path)
        self.write(change(self.read()))
        return "The file %s has been edited successfully." % self.path

    def replace(self, text):
        old, new = self.call["old_str"], self.call.get("new_str", "")
        found, at = [], text.find(old)
        while at != -1:  # left to right, without overlap
            found.append(at)
            at = text.find(old, at + len(old))
        if not found:
            raise Refused("Error: No replacement was performed, old_str `%s` did not appear "
                          "verbatim in %s." % (old, self.path))
        if len(found) > 1:
            lines = ", ".join(str(1 + text.count("\n", 0, at)) for at in found)
            raise Refused("Error: No replacement was performed. Multiple occurrences of old_str "
                          "`%s` in lines [%s]. Please ensure it is unique" % (old, lines))
        return text[:found[0]] + new + text[found[0] + len(old):]

    def insert(self, text):
        pieces, n = text.split("\n"), int(self.call["insert_line"])
        if n > len(pieces):
            raise Refused("Error: Invalid `insert_line` parameter: %d. It should be within the "
                          "range of lines of the file: [0, %d]" % (n, len(pieces)))
        return "\n".join(pieces[:n] + self.call["new_str"].split("\n") + pieces[n:])


def execute(tool, value, session):
    """One call: ("output", text) or ("throws", text). The input is validated first, and a
    refused input is returned as `Error: ` and its one-line form (execution.md §0.1)."""
    verdict, payload = validate(tool, value)
    if verdict == "reject":
        return "output", "Error: " + one_line(payload)
    call = {name: to_units(v) if isinstance(v, str) else v for name, v in payload.items()}
    try:
        return "output", Editor(call, session).run()
    except Refused as exc:
        return "output", exc.args[0]
    except Raised as exc:
        return "throws", exc.args[0]


# ---------------------------------------------------------------------------------------------
# Executing web_search (execution-web.md §0-§3)
# ---------------------------------------------------------------------------------------------
#
# A web call is one `exec` with a `host`: the host configuration (execution-web.md §1.1) that
# stands in for upstream's config files, process environment and clock. The call validates, asks
# permission, resolves the credential, sends exactly one request to the configured provider and
# returns {title, output, metadata}, or raises a text. Every permission request is recorded, in
# order, and sent back as `asks` with either answer.
#
# Unlike the editor, web_search counts no units: its texts are built from whole strings, so plain
# Python strings (astral characters as one code point) are used throughout. Lone surrogates can
# only come from JSON escapes, and every place that writes bytes handles them (js_stringify,
# form_encode, send).


class WebRaised(Exception):
    """The web call raises (a scenario's `throws`); the argument is the message."""


class WebUnsupported(Exception):
    """The peer cannot make the call (answered as a protocol `error`, not a tool outcome)."""


# execution-web.md §1.4: upstream's endpoints; the host's `endpoints` may replace each one.
DEFAULT_ENDPOINTS = {
    "exa": "https://api.exa.ai/search",
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "zai-search-international": "https://api.z.ai/api/paas/v4/web_search",
    "zai-search-china": "https://open.bigmodel.cn/api/paas/v4/web_search",
}
# §1.2: the variable of each search provider (the config field is always web.search.apiKey).
SEARCH_CREDENTIAL_VARIABLES = {"exa": "EXA_API_KEY", "brave": "BRAVE_API_KEY", "zai": "ZAI_API_KEY"}
ZAI_REGIONS = {"international": "search-prime", "china": "search_pro"}  # region -> engine (§1.4)

SEARCH_TIMEOUT_MS = 30000.0  # §2.3: web_search always uses 30 s, whatever the input
TEXT_MAX_BYTES = 5242880  # §2.4: the cap of every provider API answer (5 MiB)
MAX_REDIRECTS = 20  # §2.2: the Fetch Standard's limit

# §3.2-§3.4: the freshness of each provider.
EXA_FRESHNESS_DAYS = {"day": 1, "week": 7, "month": 31, "year": 365}
BRAVE_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
ZAI_FRESHNESS = {"day": "oneDay", "week": "oneWeek", "month": "oneMonth", "year": "oneYear"}

# §2.1: the fields Bun 1.3.8's fetch adds, which the reference pins. An explicit `accept` of the
# provider replaces `Accept: */*`.
RUNTIME_HEADERS = [("User-Agent", "Bun/1.3.8"), ("Accept", "*/*"),
                   ("Accept-Encoding", "gzip, deflate, br, zstd")]
# The runtime's own texts for network failures (§2.5). Only the refused connection is Bun's text
# (and pinned by scenarios); the others are the reference's as-built wording.
UNREACHABLE = "Unable to connect. Is the computer able to access the url?"


# --- serialization: JSON.stringify and URLSearchParams (§0.3, §3.3) ---------------------------


def js_stringify(value):
    """ECMAScript JSON.stringify with no indent: no whitespace, non-ASCII written as itself, lone
    surrogates and C0 controls escaped in lowercase hex (json_quote does exactly that).
    json.dumps(ensure_ascii=False) would come close but writes a lone surrogate raw, which cannot
    be encoded as UTF-8, so the few value kinds of a request body are written by hand."""
    if isinstance(value, dict):
        return "{" + ",".join(json_quote(k) + ":" + js_stringify(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(js_stringify(v) for v in value) + "]"
    if isinstance(value, str):
        return json_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return _number_text(float(value))  # count is a double (parse_int=float): 8.0 is written 8


FORM_SAFE = frozenset(b"*-._0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def form_encode(pairs):
    """URLSearchParams serialization (application/x-www-form-urlencoded, §3.3). Not
    urllib.parse.urlencode: its quote_plus keeps `~`, which URLSearchParams writes `%7E`. utf8()
    turns a lone surrogate into U+FFFD first, as the USVString conversion does."""

    def encode(text):
        return "".join(chr(b) if b in FORM_SAFE else "+" if b == 0x20 else "%%%02X" % b
                       for b in utf8(text))

    return "&".join(encode(name) + "=" + encode(value) for name, value in pairs)


def iso_date(ms):
    """new Date(ms).toISOString() (§3.2): UTC, always with milliseconds. Integer arithmetic, so
    no float rounding touches the milliseconds."""
    m = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (m.year, m.month, m.day, m.hour, m.minute,
                                                    m.second, m.microsecond // 1000)


# --- the transport (http.ts, requestBounded: §2.1-§2.5) -------------------------------------


class HttpFailure(Exception):
    """A WebHttpError (§2.5): `code` is HTTP_ERROR, OVERSIZED, TIMEOUT, ABORTED or NETWORK_ERROR; the
    message is the raised text; `status` is set for HTTP_ERROR."""

    def __init__(self, code, message, status=None):
        super().__init__(message)
        self.code, self.status = code, status


def _wire_target(url, parts):
    """The request target as WHATWG serializes the URL: path (at least `/`) and query, with the
    characters of the path and query percent-encode sets escaped; the fragment is never sent. An
    empty query (`x?`) stays, which urlsplit alone would lose."""
    target = urllib.parse.quote(parts.path or "/", safe="".join(
        chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"#<>?`{}'))
    if "?" in url.split("#", 1)[0]:
        target += "?" + urllib.parse.quote(parts.query, safe="".join(
            chr(c) for c in range(0x21, 0x7F) if chr(c) not in "\"#<>'"))
    return target


def _origin(parts):
    return parts.scheme.lower(), parts.hostname, parts.port


def _decoder(encoding):
    """An incremental decoder of the Content-Encoding (§2.1: decoded before the byte cap, as Bun's
    fetch hands decoded bytes to the reader), or None for an identity body. gzip and deflate come
    from zlib; br and zstd have no standard-library decoder (no scenario sends them)."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS)  # zlib-wrapped, as the Fetch Standard means
    raise HttpFailure("NETWORK_ERROR", "network error: content decoding failed")


def http_request(url, method, headers, body, timeout_ms, max_bytes, abort_at=None):
    """One request as `requestBounded` makes it: redirects followed (§2.2), the status checked
    before the body (§2.4), the body read under the cap, one timer over everything (§2.3).
    Returns the body bytes or raises HttpFailure. http.client rather than urllib.request, so that
    nothing is added to the headers behind our back and the redirects follow the Fetch Standard
    (urllib drops the body of a 307, for one). `abort_at` is when the caller's signal aborts (a
    time.monotonic() instant, §2.3), or None."""
    timer = time.monotonic() + timeout_ms / 1000.0
    # One deadline, the sooner of the timer and the abort; the timer wins a tie (§2.5). A signal
    # already aborted has passed it, so remaining() raises before anything is sent.
    deadline = timer if abort_at is None else min(timer, abort_at)
    timed_out = (HttpFailure("TIMEOUT", "request timed out after %sms" % _number_text(timeout_ms))
                 if abort_at is None or timer <= abort_at
                 else HttpFailure("ABORTED", "request aborted by caller"))

    def remaining():
        left = deadline - time.monotonic()
        if left <= 0:
            raise timed_out
        return left

    # The URL string as fetch parses it: C0 controls and spaces trimmed, tabs and newlines gone.
    current = url.strip(C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    headers = list(headers)
    redirects = 0
    while True:
        parts = urllib.parse.urlsplit(current)
        scheme = parts.scheme.lower()
        try:
            port = parts.port
        except ValueError:
            port = -1
        if scheme not in ("http", "https") or not parts.hostname or port == -1:
            raise HttpFailure("NETWORK_ERROR", "network error: invalid request")
        connection_class = (http.client.HTTPSConnection if scheme == "https"
                            else http.client.HTTPConnection)
        connection = connection_class(parts.hostname, port, timeout=remaining())
        try:
            try:
                connection.connect()
            except TimeoutError:
                raise timed_out
            except socket.gaierror:
                raise HttpFailure("NETWORK_ERROR", "network error: host not found")
            except OSError as exc:
                if "ssl" in type(exc).__module__.lower():
                    raise HttpFailure("NETWORK_ERROR", "network error: TLS handshake failed")
                # Bun says this for a refused or unreachable connection (§2.5).
                raise HttpFailure("NETWORK_ERROR", "network error: " + UNREACHABLE)
            try:
                # skip_*: Host is written below; Python's `Accept-Encoding: identity` must not go.
                connection.putrequest(method, _wire_target(current, parts), skip_host=True,
                                      skip_accept_encoding=True)
                host = parts.hostname if ":" not in parts.hostname else "[%s]" % parts.hostname
                default_port = 443 if scheme == "https" else 80
                connection.putheader("Host", host if port in (None, default_port)
                                     else "%s:%d" % (host, port))
                for name, value in headers:
                    connection.putheader(name, value)
                if body is not None:
                    connection.putheader("Content-Length", str(len(body)))
                connection.endheaders(body)
            except (UnicodeError, ValueError):  # a header that cannot be put on the wire
                raise HttpFailure("NETWORK_ERROR", "network error: invalid request")
            except TimeoutError:
                raise timed_out
            except OSError:  # the server went away while the request was sent
                raise HttpFailure("NETWORK_ERROR", "network error: connection reset")
            sock = connection.sock  # kept: getresponse may drop the connection's reference
            try:
                sock.settimeout(remaining())
                response = connection.getresponse()
            except TimeoutError:
                raise timed_out
            except (http.client.HTTPException, OSError):
                raise HttpFailure("NETWORK_ERROR", "network error: malformed HTTP response")

            status = response.status
            location = response.getheader("Location")
            if status in (301, 302, 303, 307, 308) and location is not None:
                # §2.2: follow it; a 303, or a 301/302 of a POST, continues as a GET without a
                # body (and without the headers that describe a body).
                redirects += 1
                if redirects > MAX_REDIRECTS:
                    raise HttpFailure("NETWORK_ERROR", "network error: too many redirects")
                following = urllib.parse.urljoin(current, location.strip())
                if (status == 303 and method not in ("GET", "HEAD")) or (
                        status in (301, 302) and method == "POST"):
                    method, body = "GET", None
                    headers = [(n, v) for n, v in headers if n.lower() not in (
                        "content-type", "content-encoding", "content-language",
                        "content-location")]
                try:
                    if _origin(urllib.parse.urlsplit(following)) != _origin(parts):
                        # The Fetch Standard removes Authorization on a cross-origin redirect.
                        headers = [(n, v) for n, v in headers if n.lower() != "authorization"]
                except ValueError:
                    raise HttpFailure("NETWORK_ERROR", "network error: invalid redirect location")
                current = following
                continue
            if not 200 <= status <= 299:
                # §2.4/§2.5: checked before the body is read; the text names the requested URL.
                raise HttpFailure("HTTP_ERROR", "HTTP %d for %s" % (status, url), status)
            return _read_body(response, sock, max_bytes, remaining, timed_out)
        finally:
            connection.close()


def _read_body(response, sock, max_bytes, remaining, timed_out):
    """The body chunk by chunk, decoded, failing as soon as the total passes the cap (§2.4:
    exactly max_bytes is allowed). A response without a body (204) gives zero bytes. `sock` gets
    the time left before every read, so the one timer also covers the body (§2.3)."""
    decoder = _decoder(response.getheader("Content-Encoding") or "")
    chunks, total = [], 0
    while True:
        try:
            if not response.isclosed():  # closed: the body is complete and read needs no socket
                sock.settimeout(remaining())
            chunk = response.read(65536)
        except TimeoutError:
            raise timed_out
        except (http.client.HTTPException, OSError):  # a short body, a broken connection
            raise HttpFailure("NETWORK_ERROR", "network error: malformed HTTP response")
        last = not chunk
        if decoder is not None:
            try:
                chunk = decoder.flush() if last else decoder.decompress(chunk)
            except Exception:  # zlib.error: not the encoding it claims
                raise HttpFailure("NETWORK_ERROR", "network error: content decoding failed")
        total += len(chunk)
        if total > max_bytes:
            raise HttpFailure("OVERSIZED", "response body exceeded %d bytes" % max_bytes)
        chunks.append(chunk)
        if last:
            return b"".join(chunks)


# --- providers (§2.6, §3.2-§3.4) --------------------------------------------------------------


def provider_request(provider, url, method, headers, body, abort_at=None):
    """A provider API request (§2.6): 30 s, the text cap, and HTTP failures mapped to the
    provider's texts; TIMEOUT, ABORTED, NETWORK_ERROR and OVERSIZED keep the transport's text. The
    runtime defaults go first; a provider's own `accept` replaces `Accept: */*`."""
    own = {name.lower() for name, _ in headers}
    sent = [(n, v) for n, v in RUNTIME_HEADERS if n.lower() not in own] + headers
    try:
        return http_request(url, method, sent, body, SEARCH_TIMEOUT_MS, TEXT_MAX_BYTES, abort_at)
    except HttpFailure as failure:
        if failure.code != "HTTP_ERROR":
            raise WebRaised(str(failure))
        if failure.status in (401, 403):
            raise WebRaised("%s authentication failed" % provider)
        if failure.status == 429:
            raise WebRaised("%s rate limit exceeded" % provider)
        raise WebRaised("%s server error HTTP %d" % (provider, failure.status))


def _no_constant(name):
    raise ValueError("JSON.parse has no %s" % name)


def parse_answer(data, malformed):
    """JSON.parse of the decoded body (§0.3): UTF-8 with replacement, one leading BOM removed,
    the whole text one JSON value. Python's json also reads NaN and Infinity, which JSON.parse
    refuses; a duplicate member keeps its last value in both."""
    text = data.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise WebRaised(malformed)


def _text(value):
    """A non-empty string, or None: every optional member of a result needs one."""
    return value if isinstance(value, str) and value != "" else None


def _result(url, title, snippet, published):
    """A normalized result: the title falls back to the URL; absent members stay absent."""
    out = {"url": url, "title": _text(title) or url}
    if _text(snippet) is not None:
        out["snippet"] = snippet
    if _text(published) is not None:
        out["publishedAt"] = published
    return out


def search_exa(call, credential, endpoint, host, abort_at):
    """providers/exa.ts, searchExa (§3.2)."""
    query = call["query"]
    body = {"query": query, "type": "auto", "numResults": call["count"],
            "contents": {"highlights": {"query": query, "numSentences": 3}}}
    if "freshness" in call:
        # The clock is the host's `now`; without one, the system clock (upstream's Date.now(),
        # read as the request is built).
        now = host.get("now")
        if not isinstance(now, (int, float)) or isinstance(now, bool):
            now = time.time() * 1000
        days = EXA_FRESHNESS_DAYS[call["freshness"]]
        body["startPublishedDate"] = iso_date(int(now) - days * 86400000)
    data = provider_request("exa", endpoint, "POST", [
        ("x-api-key", credential), ("content-type", "application/json"),
        ("accept", "application/json")], js_stringify(body).encode("utf-8"), abort_at)
    answer = parse_answer(data, "malformed JSON response from exa")
    if not isinstance(answer, dict) or not isinstance(answer.get("results"), list):
        raise WebRaised("unexpected exa response envelope")
    out = []
    for item in answer["results"]:
        if not isinstance(item, dict) or _text(item.get("url")) is None:
            continue  # dropped silently
        highlights = item.get("highlights")
        # The first *string* highlight, even when it is empty (then there is no snippet).
        strings = [h for h in (highlights if isinstance(highlights, list) else [])
                   if isinstance(h, str)]
        out.append(_result(item["url"], item.get("title"), strings[0] if strings else None,
                           item.get("publishedDate")))
    return out


def search_brave(call, credential, endpoint, host, abort_at):
    """providers/brave.ts, searchBrave (§3.3): a GET whose query string is appended after `?`."""
    pairs = [("q", call["query"]), ("count", _number_text(call["count"])),
             ("safesearch", "moderate")]
    if "freshness" in call:
        pairs.append(("freshness", BRAVE_FRESHNESS[call["freshness"]]))
    data = provider_request("brave", endpoint + "?" + form_encode(pairs), "GET", [
        ("X-Subscription-Token", credential), ("accept", "application/json")], None, abort_at)
    answer = parse_answer(data, "malformed JSON response from brave")
    web = answer.get("web") if isinstance(answer, dict) else None
    # An answer without `web` (no web results, in the real API) is an error too.
    if not isinstance(web, dict) or not isinstance(web.get("results"), list):
        raise WebRaised("unexpected brave response envelope")
    return [_result(item["url"], item.get("title"), item.get("description"), item.get("page_age"))
            for item in web["results"]
            if isinstance(item, dict) and _text(item.get("url")) is not None]


def search_zai(call, credential, endpoint, host, abort_at):
    """providers/zai.ts, searchZai (§3.4): the engine follows the region, not the endpoint."""
    body = {"search_engine": ZAI_REGIONS[host["search"]["region"]],
            "search_query": call["query"], "count": call["count"]}
    if "freshness" in call:
        body["search_recency_filter"] = ZAI_FRESHNESS[call["freshness"]]
    data = provider_request("zai", endpoint, "POST", [
        ("Authorization", "Bearer " + credential), ("content-type", "application/json"),
        ("accept", "application/json")], js_stringify(body).encode("utf-8"), abort_at)
    answer = parse_answer(data, "malformed JSON response from zai search")
    if not isinstance(answer, dict) or not isinstance(answer.get("search_result"), list):
        raise WebRaised("unexpected zai search response envelope")
    return [_result(item["link"], item.get("title"), item.get("content"),
                    item.get("publish_date"))
            for item in answer["search_result"]
            if isinstance(item, dict) and _text(item.get("link")) is not None]


SEARCH_PROVIDERS = {"exa": search_exa, "brave": search_brave, "zai": search_zai}


# --- the call (search-service.ts, createWebSearchTool: §3.1, §3.5, §3.6) ---------------------


def render_search_markdown(results):
    """§3.5: numbered entries, snippet and date indented by three spaces, single LFs, nothing
    escaped or trimmed."""
    if not results:
        return "No results found."
    entries = []
    for i, result in enumerate(results, 1):
        lines = ["%d. [%s](%s)" % (i, result["title"], result["url"])]
        if "snippet" in result:
            lines.append("   " + result["snippet"])
        if "publishedAt" in result:
            lines.append("   _%s_" % result["publishedAt"])
        entries.append("\n".join(lines))
    return "\n".join(entries)


def search_credential(host, provider):
    """§1.2: a non-empty variable of `env` wins, then a non-empty `search.apiKey`; never trimmed.
    Returns (credential, source) or (None, None)."""
    env = host.get("env") if isinstance(host.get("env"), dict) else {}
    variable = env.get(SEARCH_CREDENTIAL_VARIABLES[provider])
    if isinstance(variable, str) and variable != "":
        return variable, "env"
    configured = host["search"].get("apiKey")
    if isinstance(configured, str) and configured != "":
        return configured, "config"
    return None, None


def execute_web_search(value, host):
    """One web_search call: ("result", object, asks) or ("throws", text, asks). `asks` holds
    every permission request the call made, in order, whichever way it ends."""
    asks = []
    # The caller's signal (host `abortAfterMs`, §2.3) starts with the call.
    after = host.get("abortAfterMs")
    abort_at = None if after is None else time.monotonic() + after / 1000.0
    try:
        return "result", web_search(value, host, asks, abort_at), asks
    except WebRaised as exc:
        return "throws", exc.args[0], asks


def web_search(value, host, asks, abort_at):
    """search-service.ts, execute (§3.1), with the host configuration for upstream's; records
    each permission request into `asks`."""
    search = host.get("search") if isinstance(host.get("search"), dict) else {}
    host = dict(host, search=search)
    provider = search.get("provider", "exa")  # §1.1: exa by default
    if provider not in SEARCH_PROVIDERS:
        raise WebUnsupported("unknown search provider %r" % (provider,))
    # §1.3: the region is part of building the tool instance, so it is refused before the call
    # even starts: before validation, with no ask.
    if provider == "zai" and search.get("region") not in ZAI_REGIONS:
        raise WebRaised("web.search.region is required when provider is zai")
    # 1. Validate (§0.2): a refusal raises the one-line form, with no `Error: ` (unlike the
    # editor's returned text).
    verdict, call = validate("web_search", value)
    if verdict == "reject":
        raise WebRaised(one_line(call))
    # 2. Ask permission (§3.1); the host records it and answers allow or deny with a text.
    asks.append({"permission": "web_search", "patterns": [call["query"]], "always": [],
                 "metadata": {"provider": provider}})
    permission = host.get("permission", "allow")
    if isinstance(permission, dict) and "deny" in permission:
        raise WebRaised(permission["deny"])
    # 3. The credential, checked after the ask (§1.5).
    credential, source = search_credential(host, provider)
    if credential is None:
        raise WebRaised("missing credential for %s: set %s or web.search.apiKey"
                        % (provider, SEARCH_CREDENTIAL_VARIABLES[provider]))
    # 4. Exactly one request to the configured provider, no retry (§3.1).
    name = provider if provider != "zai" else "zai-search-" + search["region"]
    endpoints = host.get("endpoints") if isinstance(host.get("endpoints"), dict) else {}
    endpoint = endpoints.get(name, DEFAULT_ENDPOINTS[name])
    results = SEARCH_PROVIDERS[provider](call, credential, endpoint, host, abort_at)
    # 5. The result object (§3.6); `count` is never enforced on the answer.
    metadata = {"provider": provider}
    if provider == "zai":
        metadata["region"] = search["region"]
    metadata["resultCount"] = len(results)
    metadata["credentialSource"] = source
    return {"title": "web_search: " + call["query"], "output": render_search_markdown(results),
            "metadata": metadata}


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


# The tools whose calls this peer executes (scenarios, interfaces.md §9.2). web_fetch is
# validated but not executed: its scenarios are reported as unsupported.
SCENARIO_TOOLS = ("str_replace_editor", "web_search")


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


def answer_exec(message, sessions):
    seq = to_json_value(message.get("seq"))
    tool = message.get("tool")
    if tool not in SCENARIO_TOOLS:
        return {"type": "result", "seq": seq, "error": "tool %r is not executed" % (tool,)}
    if "input" not in message:
        return {"type": "result", "seq": seq, "error": "the exec has no input"}
    if tool == "web_search":  # a web call: one call with a host configuration, no session state
        host = message.get("host")
        if not isinstance(host, dict):
            return {"type": "result", "seq": seq, "error": "a web_search exec needs a host"}
        try:
            kind, value, asks = execute_web_search(message["input"], host)
        except Exception as exc:  # WebUnsupported, or a bug: not a tool outcome
            print("vvoc_peer: error on seq %r: %r" % (seq, exc), file=sys.stderr)
            return {"type": "result", "seq": seq, "error": "cannot make the call: %s" % exc}
        return {"type": "result", "seq": seq, kind: to_json_value(value), "asks": asks}
    session = sessions.setdefault(session_key(message), {})
    try:
        kind, text = execute(tool, message["input"], session)
    except Exception as exc:  # a bug here should not kill the session
        print("vvoc_peer: error on seq %r: %r" % (seq, exc), file=sys.stderr)
        return {"type": "result", "seq": seq, "error": "internal error: %s" % exc}
    return {"type": "result", "seq": seq, kind: text}


def session_key(message):
    """Sessions are named by the runner; any JSON value works as a name."""
    return json.dumps(message.get("session"), sort_keys=True)


def main():
    sessions = {}  # session name -> {path string as typed: snapshot} (execution.md §2.1)
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
                  "tools": list(TOOLS), "scenarios": list(SCENARIO_TOOLS)})
        elif kind == "check":
            send(answer_check(message))
        elif kind == "exec":
            send(answer_exec(message, sessions))
        elif kind == "anchors":  # the read side of hashline_edit, which this peer does not run
            send({"type": "result", "seq": to_json_value(message.get("seq")),
                  "error": "anchors belong to hashline_edit, which this peer does not execute"})
        elif kind in ("task", "event", "restart"):  # workflow steps; not in this peer's scenarios
            send({"type": "result", "seq": to_json_value(message.get("seq")),
                  "error": "this peer does not execute the workflow tools"})
        elif kind == "end":  # no answer
            sessions.pop(session_key(message), None)
        elif kind == "bye":
            return 0
        else:
            print("vvoc_peer: ignoring a message of type %r" % (kind,), file=sys.stderr)
    return 0  # end of stdin


if __name__ == "__main__":
    sys.exit(main())
