#!/usr/bin/env python3
"""Adds the shapes of issue 21 to an evaluation corpus of
../shared/tools/redact_corpus.py, with their ground truth, so that
redact_score.py's recall and decoy figures cover them:

  * personal data stored as JSON numbers: card numbers (Luhn), phone
    numbers and SSNs under their keys, PINs under password keys, at the top
    level of a line and inside JSON held in a string (a tool's output);
    beside them, hard decoys: figures that must stay numbers (ids that pass
    Luhn under id keys, millisecond times, token counts, sizes);
  * secrets and addresses used as object keys (a token map, an env map
    keyed by token, members keyed by address, several in one object);
  * SVG markup in tool output whose path data reads like IPv4 addresses
    (`m4.5 4.5.75.75-1.5 1.5`), as hard decoys, beside a real address in
    the prose (planted).

  python3 xtask/redact_shapes.py --corpus c5.jsonl --truth c5.truth.json \
      --out c5x.jsonl [--truth-out c5x.truth.json] [--seed 1] [--per-mib 40]

The input corpus is copied unchanged and the new lines are appended (the
truth's line numbers stay valid); the truth gains the new planted items,
decoys, kinds and one line hash per new line. The shared generator is not
changed: this is the repository's own extension of it.

Planted kinds are named `<kind>/<shape>` (`credit-card/json-number`,
`github-token/object-key`, `ipv4-public/beside-svg`) with the tier of
`<kind>`, so the scorer's per-kind table shows each shape on its own row.

Structure: the scorer compares each line's structure (keys, types,
non-string values) with a hash in the truth. Redacting these shapes must
change it where retrace's contract says so, and only there: a number of
personal data becomes its placeholder as a string, and a key holding a
secret becomes the key as typed mode writes it (`[REDACTED:kind]`, and
`#2`, `#3` for later keys of the same object that would read the same).
The hash stored for such a line is the one of that expected output, so
`structure changed` still counts any other change. It is written for
`retrace redact --mode typed`, which is what the bench runs.

Stdlib only; the same bytes for the same arguments.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

sys.dont_write_bytecode = True
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "tools")
sys.path.insert(0, os.environ.get("REDACT_CORPUS_TOOLS", SHARED))
import redact_corpus as rc  # noqa: E402  (the shared generator: values and line hashes)

VERSION = 1

# Token kinds whose values are found by their shape alone, used as keys.
KEY_KINDS = [
    "anthropic-api-key", "openai-api-key", "github-token", "github-fine-grained-pat", "gitlab-pat",
    "slack-token", "stripe-secret-key", "huggingface-token", "aws-access-key-id", "npm-token",
    "groq-api-key", "digitalocean-token", "shopify-token", "linear-api-key",
]

SHAPES = {
    "json-number": "an integer value, not a string (written as a placeholder string when redacted)",
    "object-key": "an object key (written as the typed placeholder key when redacted)",
    "beside-svg": "prose next to SVG markup whose path data looks like IPv4",
}
DECOYS = {
    "number-figure": (True, "ids (some passing Luhn under id keys), ms times, token counts, sizes as JSON numbers"),
    "svg-path-data": (True, "SVG d/points attributes with dotted digit groups that read as public IPv4"),
}


class Num(int):
    """An integer that is personal data: written as a number, expected back
    as a placeholder string."""

    def __new__(cls, value, kind):
        n = super().__new__(cls, value)
        n.kind = kind
        return n


class Key(str):
    """A key holding a secret: written as is, expected back as the typed
    placeholder key."""

    def __new__(cls, value, kind):
        s = super().__new__(cls, value)
        s.kind = kind
        return s


class Embedded:
    """JSON held in a string (a tool's output), pretty-printed."""

    def __init__(self, value):
        self.value = value


def as_written(x):
    if isinstance(x, Embedded):
        return json.dumps(as_written(x.value), indent=2, ensure_ascii=False)
    if isinstance(x, dict):
        return {str(k): as_written(v) for k, v in x.items()}
    if isinstance(x, list):
        return [as_written(v) for v in x]
    if isinstance(x, Num):
        return int(x)
    return x


def as_expected(x):
    if isinstance(x, Embedded):
        return json.dumps(as_expected(x.value), indent=2, ensure_ascii=False)
    if isinstance(x, dict):
        out, seen = {}, set()
        for k, v in x.items():
            if isinstance(k, Key):
                base = "[REDACTED:%s]" % k.kind
                name, n = base, 1
                while name in seen:
                    n += 1
                    name = "%s#%d" % (base, n)
                k = name
            seen.add(k)
            out[str(k)] = as_expected(v)
        return out
    if isinstance(x, list):
        return [as_expected(v) for v in x]
    if isinstance(x, Num):
        return "[REDACTED:%s]" % x.kind
    return x


class Shapes:
    def __init__(self, seed, first_line):
        self.r = random.Random(seed * 7919 + 21)
        self.line = first_line
        self.lines = []
        self.planted = []
        self.decoys = []
        self.hashes = []
        self.counts = {}

    # -- values ---------------------------------------------------------------
    def card(self):
        r = self.r
        prefix, length = r.choice([("4", 16), ("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("37", 15),
                                   ("6011", 16), ("4", 19)])
        return rc.luhn_complete(prefix, length, r)

    def phone(self):
        r = self.r
        x = r.random()
        if x < 0.6:  # NANP with country code, fictional 555-01xx
            return "1%d%d%d555%04d" % (r.randint(2, 9), r.randint(0, 9), r.randint(0, 9), r.randint(100, 199))
        if x < 0.8:  # NANP without it
            return "%d%d%d555%04d" % (r.randint(2, 9), r.randint(0, 9), r.randint(0, 9), r.randint(100, 199))
        return "447700900%03d" % r.randint(0, 999)  # UK mobile drama range

    def ssn(self):
        r = self.r
        while True:
            area = r.randint(1, 899)
            if area != 666:
                return "%03d%02d%04d" % (area, r.randint(1, 99), r.randint(1, 9999))

    def pin(self):
        """Four to eight digits, three of them different at least (`1111`,
        `74774` read as placeholders to the string rule as well)."""
        r = self.r
        while True:
            v = "%d" % r.randint(1000, 99999999)
            if len(set(v)) >= 3:
                return v

    def luhn_id(self):
        """A 16-digit id that passes Luhn with a Visa prefix: only its key
        (`order_id`) says it is no card."""
        return int(rc.luhn_complete("4", 16, self.r))

    def ms(self):
        return 1732752000000 + self.r.randint(0, 10 ** 10)

    def public_ipv4(self):
        return rc.public_ipv4(self.r)

    # -- planting -------------------------------------------------------------
    def plant(self, items, kind, shape, value):
        name = "%s/%s" % (kind, shape)
        self.counts[name] = self.counts.get(name, 0) + 1
        items.append(("P", name, rc.KINDS[kind][0], value))

    def num(self, items, kind, digits):
        # As the number is written (an SSN of area 001-099 loses its zeros).
        self.plant(items, kind, "json-number", str(int(digits)))
        return Num(int(digits), kind)

    def key(self, items, kind, value):
        self.plant(items, kind, "object-key", value)
        return Key(value, kind)

    def emit(self, obj, items):
        self.line += 1
        line = json.dumps(as_written(obj), ensure_ascii=False, separators=(",", ":"))
        for it in items:
            if it[0] == "P":
                _, kind, tier, value = it
                self.planted.append({"line": self.line, "kind": kind, "tier": tier, "value": value,
                                     "context": kind.split("/")[1]})
            elif it[0] == "D":
                self.decoys.append({"line": self.line, "kind": it[1], "hard": DECOYS[it[1]][0], "value": it[2]})
            else:
                self.decoys.append({"line": self.line, "kind": it[1], "hard": DECOYS[it[1]][0], "path": it[2],
                                    "value": it[3]})
        self.hashes.append(rc.line_hash(as_expected(obj)))
        self.lines.append(line)

    def envelope(self, content, result):
        r = self.r
        return {
            "parentUuid": "%032x" % r.getrandbits(128), "isSidechain": False, "userType": "external",
            "cwd": "/workspace/app", "sessionId": "%032x" % r.getrandbits(128), "version": "1.0.51",
            "type": "user",
            "message": {"role": "user", "content": [{"tool_use_id": "toolu_01" + rc.rs(r, rc.ALNUM, 22),
                                                     "type": "tool_result", "content": content}]},
            "uuid": "%032x" % r.getrandbits(128), "timestamp": "2025-06-01T10:%02d:%02d.000Z" % (
                r.randint(0, 59), r.randint(0, 59)),
            "toolUseResult": result,
        }

    # -- shapes ---------------------------------------------------------------
    def customer(self, pii=True):
        """A customer record from a database tool: numbers that are personal
        data (when `pii`) among figures that are not."""
        r = self.r
        items = []
        first, last = rc.person(r)
        rec = {"id": r.randint(10 ** 5, 10 ** 7), "name": "%s %s" % (first, last)}
        order_id = self.luhn_id()
        created = self.ms()
        if pii:
            rec["phone"] = self.num(items, "phone-number", self.phone())
            rec["card"] = {"number": self.num(items, "credit-card", self.card()), "exp_month": r.randint(1, 12),
                           "exp_year": r.randint(2026, 2031)}
            if r.random() < 0.4:
                rec["ssn"] = self.num(items, "us-ssn", self.ssn())
            if r.random() < 0.3:
                rec["cards_on_file"] = [self.num(items, "credit-card", self.card()), r.randint(1, 9)]
            if r.random() < 0.25:
                rec["pin"] = {"password": self.num(items, "password-assignment", self.pin())}
        rec["order_id"] = order_id
        rec["created_ms"] = created
        rec["usage"] = {"input_tokens": r.randint(10, 10 ** 6), "output_tokens": r.randint(10, 10 ** 5),
                        "quota_bytes": int(self.phone())}
        # The figures, by path in the tool's result object.
        for path, value in ((["toolUseResult", "order_id"], order_id), (["toolUseResult", "created_ms"], created),
                            (["toolUseResult", "usage", "quota_bytes"], rec["usage"]["quota_bytes"])):
            items.append(("DP", "number-figure", path, value))
        text = Embedded(rec) if r.random() < 0.7 else "%d row(s)" % 1
        self.emit(self.envelope(text, rec), items)

    def keyed(self):
        """Objects keyed by secrets and addresses: a token map, an env map,
        members by address (several in one object)."""
        r = self.r
        items = []
        x = r.random()
        if x < 0.5:
            kind = r.choice(KEY_KINDS)
            tok = rc.g_value(kind, r).value
            obj = {"tokens": {self.key(items, kind, tok): {"scopes": ["read", "write"][: r.randint(1, 2)],
                                                           "last_used": "2025-05-%02d" % r.randint(1, 28)}}}
        elif x < 0.75:
            kind = r.choice(KEY_KINDS)
            tok = rc.g_value(kind, r).value
            obj = {"env": {"PATH": "/usr/bin:/bin", self.key(items, kind, tok): "1", "LANG": "C.UTF-8"}}
        else:
            members = {}
            for _ in range(r.randint(1, 3)):
                email = rc.g_value("email", r).value
                if email in members:
                    continue
                members[self.key(items, "email", email)] = r.choice(["admin", "dev", "ops", "read"])
            obj = {"team": "platform", "members": members}
        text = Embedded(obj) if r.random() < 0.6 else "ok"
        self.emit(self.envelope(text, obj), items)

    def dotted_quad(self):
        """Coordinates that read as a public IPv4 address: `93.5.25.75` is
        the numbers 93.5, .25 and .75."""
        r = self.r
        while True:
            a, b, c, d = r.randint(1, 223), r.randint(1, 99), r.randint(1, 99), r.randint(1, 99)
            if is_public(a, b, c, d):
                return "%d.%d.%d.%d" % (a, b, c, d)

    def path_data(self):
        """svgo-style minified path data holding dotted quads after a space."""
        r = self.r
        parts = ["M%d %d" % (r.randint(0, 24), r.randint(0, 24))]
        for _ in range(r.randint(1, 4)):
            parts.append(r.choice(["l", "c1 1 ", "m", "h1v1l"]) + "%d %s" % (r.randint(1, 9), self.dotted_quad()))
            parts.append(r.choice(["-1.5 1.5", " 2 2", "-.5-.5", ",3"]))
        parts.append("z")
        return "".join(parts)

    def svg(self):
        r = self.r
        items = []
        d1, d2 = self.path_data(), self.path_data()
        points = "%s %d %d" % (self.dotted_quad(), r.randint(1, 9), r.randint(1, 9))
        ip = self.public_ipv4()
        self.plant(items, "ipv4-public", "beside-svg", ip)
        svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none">'
               '<path fill-rule="evenodd" d="%s"/><path d=\'%s\'/><polyline points="%s"/></svg>' % (d1, d2, points))
        for v in (d1, d2, points):
            items.append(("D", "svg-path-data", v))
        text = r.choice(["Downloaded the icon from %s:\n%s\n", "%s served this:\n%s\nLooks right."]) % (ip, svg)
        result = {"icon": {"d": d1, "viewBox": "0 0 24 24"}, "bytes": len(svg)}
        items.append(("DP", "svg-path-data", ["toolUseResult", "icon", "d"], d1))
        self.emit(self.envelope(text, result), items)


def is_public(a, b, c, d):
    return not (a in (0, 10, 127) or a >= 224 or (a == 100 and 64 <= b < 128) or (a == 169 and b == 254)
                or (a == 172 and 16 <= b < 32) or (a == 192 and b == 168) or (a == 192 and b == 0 and c in (0, 2))
                or (a == 198 and b in (18, 19)) or (a == 198 and b == 51 and c == 100)
                or (a == 203 and b == 0 and c == 113) or d in (0, 255))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--truth-out", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-mib", type=float, default=40.0, help="records of each shape per MiB of corpus")
    a = ap.parse_args(argv)
    truth_out = a.truth_out or (a.out[:-6] if a.out.endswith(".jsonl") else a.out) + ".truth.json"
    truth = json.load(open(a.truth, encoding="utf-8"))
    with open(a.corpus, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        sys.exit("redact_shapes.py: %s does not end with a newline" % a.corpus)
    s = Shapes(a.seed, truth["lines"])
    n = max(1, int(len(data) / 1048576 * a.per_mib))
    for i in range(n):
        s.customer(pii=True)
        s.keyed()
        s.svg()
        if i % 4 == 0:
            s.customer(pii=False)  # a clean line: figures only
    with open(a.out, "wb") as f:
        f.write(data)
        f.write(("\n".join(s.lines) + "\n").encode("utf-8"))
    next_id = len(truth["planted"]) + 1
    for p in s.planted:
        p["id"] = next_id
        next_id += 1
    truth["planted"].extend(s.planted)
    truth["decoys"].extend(s.decoys)
    truth["line_hashes"].extend(s.hashes)
    truth["lines"] += len(s.lines)
    truth["bytes"] = len(data) + sum(len(x.encode("utf-8")) + 1 for x in s.lines)
    truth["corpus"] = os.path.basename(a.out)
    for name, count in sorted(s.counts.items()):
        kind, shape = name.split("/")
        truth["kinds"][name] = {"tier": rc.KINDS[kind][0], "mirrors": "retrace issue 21",
                                "shape": SHAPES[shape], "planted": count}
    for k, (hard, what) in DECOYS.items():
        truth["decoy_kinds"][k] = {"hard": hard, "what": what}
    truth["extended_by"] = {"script": "xtask/redact_shapes.py", "version": VERSION, "seed": a.seed,
                            "lines": len(s.lines)}
    with open(truth_out, "w", encoding="utf-8") as f:
        json.dump(truth, f, ensure_ascii=False, separators=(",", ":"))
    print("wrote %s (+%d lines: %s; decoys +%d)" % (
        a.out, len(s.lines), ", ".join("%s %d" % kv for kv in sorted(s.counts.items())), len(s.decoys)),
        file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
