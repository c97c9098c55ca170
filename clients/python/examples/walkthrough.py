"""Every part of the client once, against a running Herald: send a template, a file and an interactive
message; a dry run; list and read templates; a webhook endpoint whose delivered event's signature is
checked with the Standard Webhooks library; the message log page by page; a refusal read as a problem.

    HERALD_BASE_URL=http://127.0.0.1:8080 HERALD_API_KEY=hk_live_… python examples/walkthrough.py

The webhook part runs a receiver on 127.0.0.1, so Herald must allow private, plain-HTTP webhook targets
(HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS=true, HERALD_ALLOW_INSECURE_WEBHOOKS=true).
"""

import base64
import io
import os
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from standardwebhooks import Webhook

from herald_client import AuthenticatedClient
from herald_client.api.contacts import get_window
from herald_client.api.messages import list_messages, send_file, send_interactive, send_template, send_text
from herald_client.api.templates import get_template, list_templates
from herald_client.api.webhooks import create_webhook, test_webhook
from herald_client.models import (
    CreateWebhookRequest,
    DryRunResource,
    InteractiveActionObject,
    MessagePageResource,
    MessageResource,
    Problem,
    ReplyButtonObject,
    ReplyObject,
    SendFileForm,
    SendInteractiveRequest,
    SendTemplateRequest,
    SendTextRequest,
    TemplateListResource,
    TemplateRefRequest,
    TemplateResource,
    TextObject,
    WebhookTestResource,
    WebhookWithSecretResource,
    WindowResource,
)
from herald_client.types import UNSET, File

CUSTOMER = "+15551234567"
# The demo organization's sender (`herald serve --demo`).
BUSINESS = "+15550001111"
# A 1×1 PNG: Herald judges a file's type from its bytes.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"failed: {what}")


herald = AuthenticatedClient(base_url=os.environ["HERALD_BASE_URL"], token=os.environ["HERALD_API_KEY"])
hello = SendTemplateRequest(to=CUSTOMER, template=TemplateRefRequest(name="hello_world", language="en_US"))

# A template send; 202 with the message, `accepted` at first.
template = send_template.sync(client=herald, body=hello)
check(isinstance(template, MessageResource) and template.id.startswith("msg_"), "a template send answers a message")
print(f"template sent: {template.id}")

# Files and interactive messages need the customer's 24-hour window open: on `herald serve --demo` the
# network simulator plays the customer writing in (this call is the simulator's, not the API's).
simulated = httpx.post(
    f"{os.environ['HERALD_BASE_URL']}/simulator/control/inbound",
    json={"from": CUSTOMER, "to": BUSINESS, "text": "Hi! Where is my order?"},
)
check(simulated.is_success, "the simulator takes the customer's message")
for tries in range(100):
    window = get_window.sync(client=herald, number=CUSTOMER)
    check(isinstance(window, WindowResource), "the window is read")
    if window.open_:
        break
    time.sleep(0.1)
check(window.open_, "the customer's message opens the window")

# A file, as multipart: the part's filename is the one the recipient sees.
form = SendFileForm(to=CUSTOMER, caption="The receipt", file=File(io.BytesIO(PNG), "receipt.png", "image/png"))
file = send_file.sync(client=herald, body=form)
check(isinstance(file, MessageResource) and file.type_ == "image", "a PNG goes out as an image")
print(f"file sent: {file.id}")

# An interactive message with reply buttons.
buttons = [ReplyButtonObject(type_="reply", reply=ReplyObject(id=i, title=i.title())) for i in ("yes", "no")]
interactive = send_interactive.sync(
    client=herald,
    body=SendInteractiveRequest(
        to=CUSTOMER,
        type_="button",
        body=TextObject(text="Did the parcel arrive?"),
        action=InteractiveActionObject(buttons=buttons),
    ),
)
check(isinstance(interactive, MessageResource), "an interactive send answers a message")
print(f"interactive sent: {interactive.id}")

# A dry run: what the send would meet, nothing sent.
dry_run = send_template.sync(client=herald, body=hello, dry_run=True)
check(isinstance(dry_run, DryRunResource) and dry_run.would_accept and not dry_run.refusals, "the dry run would accept")
print("dry run: would accept")

# Templates: the list (filtered in the query), then one read by name and language.
templates = list_templates.sync(client=herald, status="APPROVED")
check(isinstance(templates, TemplateListResource), "the templates are listed")
named = [t for t in templates.data if t.name == "hello_world"]
check(len(named) > 0, "hello_world is listed")
read = get_template.sync(client=herald, name=named[0].name, language=named[0].language)
check(isinstance(read, TemplateResource), "a template is read")
print(f"templates: {len(templates.data)} approved; {read.name}/{read.language} is {read.status}")

# A webhook endpoint at a receiver of our own; its test event arrives signed.
deliveries: "queue.Queue[tuple[bytes, dict[str, str]]]" = queue.Queue()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(204)
        self.end_headers()
        deliveries.put((body, {k.lower(): v for k, v in self.headers.items()}))

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
endpoint = create_webhook.sync(client=herald, body=CreateWebhookRequest(url=url, description="walkthrough"))
check(isinstance(endpoint, WebhookWithSecretResource), "the endpoint is created with its secret")
test = test_webhook.sync(client=herald, id=endpoint.id)
check(isinstance(test, WebhookTestResource), "a test event is queued")
# The endpoint takes every event kind, so the statuses of the messages above may arrive first: each
# delivery's signature is verified, and the wait ends at the test event's own delivery.
while True:
    body, headers = deliveries.get(timeout=30)
    event = Webhook(endpoint.secret).verify(body, headers)
    if headers["webhook-id"] == test.event_id:
        break
receiver.shutdown()
print(f"webhook: {event.get('type', 'event')} delivered and its signature verified")

# The message log, two at a time, following `next_cursor` to the end.
seen, pages, cursor = 0, 0, UNSET
while True:
    page = list_messages.sync(client=herald, limit=2, cursor=cursor)
    check(isinstance(page, MessagePageResource), "a page of the log")
    seen, pages = seen + len(page.data), pages + 1
    if not page.next_cursor or pages >= 100:
        break
    cursor = page.next_cursor
check(seen >= 3 and pages >= 2, "the log pages through the sends")
print(f"message log: {seen} messages on {pages} pages")

# A refusal: the answer's body parsed as the typed problem.
refused = send_text.sync_detailed(client=herald, body=SendTextRequest(to="not a number", message="Hi"))
check(isinstance(refused.parsed, Problem), "a refusal is a problem")
problem = refused.parsed
check(refused.status_code == 422 and problem.code == "validation_failed", "a bad number is validation_failed")
fields = ", ".join(e.field for e in problem.errors or [])
print(f"refused: {problem.code} ({fields})")
print("walkthrough: every step passed")
