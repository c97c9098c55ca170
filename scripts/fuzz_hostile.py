#!/usr/bin/env python3
"""`make fuzz-api`'s hostile shapes (docs/fuzzing.md): requests a client can send that the OpenAPI document
does not describe, against a running `herald serve`. Methods of the client's invention (many, and 60 KB long),
usage dates beyond any calendar, a 16 MiB body of many keys, 80,000 template variables, a deeply nested
object. Each must be answered (no dropped connection, no 5xx) with its documented status; afterwards the
metrics scrape (when METRICS_URL is given) holds no method label of the client's and stayed small.

Usage: fuzz_hostile.py BASE_URL API_KEY [METRICS_URL]"""
import http.client
import json
import random
import sys
import urllib.parse

base, key = sys.argv[1], sys.argv[2]
metrics = sys.argv[3] if len(sys.argv) > 3 else None
url = urllib.parse.urlsplit(base)
failures = []


def call(method, path, body=None, headers=None):
    """The status of one request on a connection of its own; None when the server dropped it unanswered."""
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    all_headers = {"Authorization": f"Bearer {key}"}
    if body is not None:
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in all_headers.items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        if body is not None:
            try:
                conn.send(body)
            except OSError:
                pass  # answered (413) and closed before the whole body was read: the answer is still there
        response = conn.getresponse()
        response.read()
        return response.status
    except (ConnectionError, http.client.HTTPException, OSError):
        return None
    finally:
        conn.close()


def expect(what, status, allowed):
    if status not in allowed:
        failures.append(f"{what}: {status} (expected one of {sorted(allowed)})")


def scrape():
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(metrics).hostname, urllib.parse.urlsplit(metrics).port)
    conn.request("GET", "/metrics")
    return conn.getresponse().read().decode()


before = scrape() if metrics else ""

rng = random.Random(8)
letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
for n in range(300):
    method = "".join(rng.choice(letters) for _ in range(rng.randint(1, 12))) + str(n)
    expect(f"method {method}", call(method, rng.choice(["/healthz", "/api/v1/usage", "/nowhere"])), {400, 401, 404, 405, 429})
for n in range(10):
    # Over actix's head limit answers 431; under it, 405 like any other unknown method.
    expect("a 60 KB method", call("Z" * 60_000 + str(n), "/healthz"), {400, 405, 431})

for query in ["until=-262143-01-01", "until=%2B262142-12-31&from=%2B262142-12-30", "until=-4713-12-01",
              "from=0000-01-01", "until=%2B10000-01-01", "from=1999-12-31&until=2000-01-01"]:
    expect(f"usage {query}", call("GET", f"/api/v1/usage?{query}"), {422})
expect("usage at the range's end", call("GET", "/api/v1/usage?from=9999-10-01&until=9999-12-31"), {200})

# A broadcast (up to 16 MiB) of many keys, just under the limit so that it is read whole: refused for its
# fields (422), never a 5xx; over 256 KiB elsewhere, 413.
fields, size = [], 2
while size < 16 * 1024 * 1024 - 1024:
    field = '"k%d":%d' % (len(fields), len(fields))
    fields.append(field)
    size += len(field) + 1
many_keys = ("{" + ",".join(fields) + "}").encode()
expect("a broadcast of 16 MiB of many keys", call("POST", "/api/v1/broadcasts", many_keys), {400, 413, 422})
expect("a send of 16 MiB", call("POST", "/api/v1/messages/send-template", many_keys), {413})
variables = json.dumps({"template": {"name": "hello_world", "language": "en_US"},
                        "recipients": [{"to": "+15551234567",
                                        "variables": {"body": [str(i) for i in range(80_000)]}}]}).encode()
expect("80,000 variables", call("POST", "/api/v1/broadcasts", variables), {413, 422})
nested = b"[" * 100_000 + b"]" * 100_000
expect("100,000 nested arrays", call("POST", "/api/v1/messages/send-template", nested), {400, 413, 422})
expect("the server still answers", call("GET", "/healthz"), {200})

if metrics:
    after = scrape()
    labels = {line.split('method="', 1)[1].split('"', 1)[0] for line in after.splitlines()
              if line.startswith("herald_http_requests_total{") and 'method="' in line}
    strange = labels - {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "other"}
    if strange:
        failures.append(f"method labels of the client's: {sorted(m[:20] for m in strange)}")
    if len(after) > len(before) + 256 * 1024:
        failures.append(f"the scrape grew from {len(before)} to {len(after)} bytes")

for failure in failures:
    print("FAIL", failure)
print(f"hostile shapes: {len(failures)} failed")
sys.exit(1 if failures else 0)
