/**
 * Every part of the client once, against a running Herald: send a template, a file and an interactive
 * message; a dry run; list and read templates; a webhook endpoint whose delivered event's signature is
 * checked with the Standard Webhooks library; the message log page by page; a refusal read as a problem.
 *
 *   HERALD_BASE_URL=http://127.0.0.1:8080 HERALD_API_KEY=hk_live_… node dist/examples/walkthrough.js
 *
 * The webhook part runs a receiver on 127.0.0.1, so Herald must allow private, plain-HTTP webhook targets
 * (HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS=true, HERALD_ALLOW_INSECURE_WEBHOOKS=true).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { createHeraldClient, HeraldProblemError, unwrap } from "../src/index.js";

const CUSTOMER = "+15551234567";
/** The demo organization's sender (`herald serve --demo`). */
const BUSINESS = "+15550001111";
/** A 1×1 PNG: Herald judges a file's type from its bytes. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
  "base64",
);

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`failed: ${what}`);
}

const herald = createHeraldClient({ baseUrl: setting("HERALD_BASE_URL"), apiKey: setting("HERALD_API_KEY") });

// A template send; 202 with the message, `accepted` at first.
const template = unwrap(
  await herald.POST("/api/v1/messages/send-template", {
    body: { to: CUSTOMER, template: { name: "hello_world", language: "en_US" } },
  }),
);
check("id" in template && template.id.startsWith("msg_"), "a template send answers a message");
console.log(`template sent: ${template.id}`);

// Files and interactive messages need the customer's 24-hour window open: on `herald serve --demo` the
// network simulator plays the customer writing in (this call is the simulator's, not the API's).
const simulated = await fetch(`${setting("HERALD_BASE_URL")}/simulator/control/inbound`, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ from: CUSTOMER, to: BUSINESS, text: "Hi! Where is my order?" }),
});
check(simulated.ok, "the simulator takes the customer's message");
for (let tries = 0; ; tries += 1) {
  const window = unwrap(
    await herald.GET("/api/v1/contacts/{number}/window", { params: { path: { number: CUSTOMER } } }),
  );
  if (window.open) break;
  check(tries < 100, "the customer's message opens the window");
  await new Promise((resolve) => setTimeout(resolve, 100));
}

// A file, as multipart: the part's filename is the one the recipient sees.
const file = unwrap(
  await herald.POST("/api/v1/messages/send-file", {
    body: { to: CUSTOMER, file: "", caption: "The receipt" },
    bodySerializer: () => {
      const form = new FormData();
      form.set("to", CUSTOMER);
      form.set("caption", "The receipt");
      form.set("file", new Blob([PNG], { type: "image/png" }), "receipt.png");
      return form;
    },
  }),
);
check("type" in file && file.type === "image", "a PNG goes out as an image");
console.log(`file sent: ${file.id}`);

// An interactive message with reply buttons.
const interactive = unwrap(
  await herald.POST("/api/v1/messages/send-interactive", {
    body: {
      to: CUSTOMER,
      type: "button",
      body: { text: "Did the parcel arrive?" },
      action: {
        buttons: [
          { type: "reply", reply: { id: "yes", title: "Yes" } },
          { type: "reply", reply: { id: "no", title: "No" } },
        ],
      },
    },
  }),
);
check("id" in interactive, "an interactive send answers a message");
console.log(`interactive sent: ${interactive.id}`);

// A dry run: what the send would meet, nothing sent.
const dryRun = unwrap(
  await herald.POST("/api/v1/messages/send-template", {
    params: { query: { dry_run: true } },
    body: { to: CUSTOMER, template: { name: "hello_world", language: "en_US" } },
  }),
);
check("would_accept" in dryRun && dryRun.would_accept && dryRun.refusals.length === 0, "the dry run would accept");
console.log(`dry run: would accept; the service window is ${dryRun.window?.open ? "open" : "closed"}`);

// Templates: the list (filtered in the query), then one read by name and language.
const templates = unwrap(await herald.GET("/api/v1/templates", { params: { query: { status: "APPROVED" } } }));
const hello = templates.data.find((t) => t.name === "hello_world");
check(hello !== undefined, "hello_world is listed");
const read = unwrap(
  await herald.GET("/api/v1/templates/{name}/{language}", {
    params: { path: { name: hello.name, language: hello.language } },
  }),
);
console.log(`templates: ${templates.data.length} approved; ${read.name}/${read.language} is ${read.status}`);

// A webhook endpoint at a receiver of our own; its test event arrives signed.
// The endpoint takes every event kind, so the statuses of the messages above may arrive first: every
// delivery is kept, and the wait ends at the test event's own.
type Delivery = { body: string; headers: IncomingHttpHeaders };
const deliveries: Delivery[] = [];
let arrived: () => void = () => {};
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    res.writeHead(204).end();
    deliveries.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
    arrived();
  });
});
async function deliveryOf(eventId: string): Promise<Delivery> {
  for (;;) {
    const found = deliveries.find((d) => d.headers["webhook-id"] === eventId);
    if (found) return found;
    await new Promise<void>((resolve) => (arrived = resolve));
  }
}
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverPort = (receiver.address() as AddressInfo).port;
const endpoint = unwrap(
  await herald.POST("/api/v1/webhooks", {
    body: { url: `http://127.0.0.1:${receiverPort}/hook`, description: "walkthrough" },
  }),
);
const test = unwrap(await herald.POST("/api/v1/webhooks/{id}/test", { params: { path: { id: endpoint.id } } }));
const delivery = await deliveryOf(test.event_id);
receiver.close();
const event = new Webhook(endpoint.secret).verify(delivery.body, {
  "webhook-id": String(delivery.headers["webhook-id"]),
  "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
  "webhook-signature": String(delivery.headers["webhook-signature"]),
}) as { type?: string };
console.log(`webhook: ${event.type ?? "event"} delivered and its signature verified`);

// The message log, two at a time, following `next_cursor` to the end.
let cursor: string | undefined;
let seen = 0;
let pages = 0;
do {
  const page = unwrap(await herald.GET("/api/v1/messages", { params: { query: { limit: 2, cursor } } }));
  seen += page.data.length;
  pages += 1;
  cursor = page.next_cursor ?? undefined;
} while (cursor !== undefined && pages < 100);
check(seen >= 3 && pages >= 2, "the log pages through the sends");
console.log(`message log: ${seen} messages on ${pages} pages`);

// A refusal: the typed problem, both as the answer's `error` and as the thrown error of `unwrap`.
const refused = await herald.POST("/api/v1/messages/send-text", { body: { to: "not a number", message: "Hi" } });
check(refused.error?.code === "validation_failed", "a bad number is validation_failed");
try {
  unwrap(refused);
  check(false, "unwrap throws on a refusal");
} catch (error) {
  check(error instanceof HeraldProblemError && error.problem.status === 422, "unwrap throws the problem");
  console.log(`refused: ${error.problem.code} (${error.problem.errors?.map((e) => e.field).join(", ")})`);
}
console.log("walkthrough: every step passed");
