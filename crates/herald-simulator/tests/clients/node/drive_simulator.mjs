// Drives Herald's Cloud API simulator with whatsapp-api-js, a real Node.js Cloud API client, pinned in
// package.json and package-lock.json.
//
// Run by the simulator's contract test (tests/simulator/clients.rs) with the same environment as the Python
// script (SIM_GRAPH_BASE, SIM_TOKEN, SIM_PHONE_ID, SIM_WABA_ID, SIM_CUSTOMER, SIM_INBOUND_WAMID).
//
// whatsapp-api-js calls https://graph.facebook.com itself and takes a `ponyfill.fetch` in place of the
// global fetch; the one below sends those calls to the simulator instead and changes nothing else, so
// what reaches the simulator is what the library would send to Meta: unversioned `block_users`, and a media
// upload whose `messaging_product` is in the query string.

import { createHash } from "node:crypto";
import { WhatsAppAPI } from "whatsapp-api-js";
import {
  ActionButtons,
  ActionCTA,
  ActionList,
  ActionNavigateFlow,
  Body,
  BodyComponent,
  BodyParameter,
  Button,
  Contacts,
  Document,
  HeaderComponent,
  HeaderParameter,
  Image,
  Interactive,
  Language,
  ListSection,
  Location,
  Name,
  Phone,
  Reaction,
  Row,
  Sticker,
  Template,
  Text,
  URLComponent,
  Video,
  Audio,
} from "whatsapp-api-js/messages";

const env = process.env;
const META = "https://graph.facebook.com/";
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);

// The simulator checks an upload's type and size, not its contents: a few bytes stand in for each file.
const FILES = {
  document: ["application/pdf", "terms.pdf", Buffer.from("%PDF-1.4\n% contract test\n")],
  audio: ["audio/ogg", "note.ogg", Buffer.concat([Buffer.from("OggS"), Buffer.alloc(60)])],
  video: ["video/mp4", "clip.mp4", Buffer.concat([Buffer.from("\0\0\0\x18ftypmp42", "latin1"), Buffer.alloc(52)])],
  sticker: ["image/webp", "smile.webp", Buffer.concat([Buffer.from("RIFF$\0\0\0WEBPVP8 ", "latin1"), Buffer.alloc(48)])],
};

function check(condition, what) {
  if (!condition) throw new Error(what);
}

const toSimulator = (url, options) => {
  const text = String(url);
  const target = text.startsWith(META) ? `${env.SIM_GRAPH_BASE}/${text.slice(META.length)}` : text;
  return fetch(target, options);
};

const api = new WhatsAppAPI({
  token: env.SIM_TOKEN,
  v: "v23.0",
  secure: false,
  ponyfill: { fetch: toSimulator },
});
const phone = env.SIM_PHONE_ID;
const to = env.SIM_CUSTOMER;
const inbound = env.SIM_INBOUND_WAMID;

async function send(message) {
  const answer = await api.sendMessage(phone, to, message);
  check(answer.messages?.[0]?.id, `send ${message._type}: ${JSON.stringify(answer)}`);
  return answer.messages[0].id;
}

async function main() {
  const sent = {};

  // Media upload (messaging_product in the query string), retrieval and download.
  const form = new FormData();
  form.append("file", new Blob([PNG], { type: "image/png" }), "pixel.png");
  const uploaded = await api.uploadMedia(phone, form);
  check(uploaded.id, `upload: ${JSON.stringify(uploaded)}`);
  const media = await api.retrieveMedia(uploaded.id, phone);
  check(media.mime_type === "image/png", `retrieve: ${JSON.stringify(media)}`);
  check(media.sha256 === createHash("sha256").update(PNG).digest("hex"), "sha256 of the upload");
  const download = await api.fetchMedia(media.url);
  check(download.ok, `download answered ${download.status}`);
  check(Buffer.from(await download.arrayBuffer()).equals(PNG), "the downloaded bytes are the uploaded ones");

  const ids = {};
  for (const [kind, [type, name, bytes]] of Object.entries(FILES)) {
    const upload = new FormData();
    upload.append("file", new Blob([bytes], { type }), name);
    ids[kind] = (await api.uploadMedia(phone, upload)).id;
    check(ids[kind], `upload of a ${kind}`);
  }

  // Every kind Herald sends.
  sent.text = await send(new Text("Hello from whatsapp-api-js"));
  sent.image_id = await send(new Image(uploaded.id, true, "by id"));
  sent.image_link = await send(new Image("https://example.com/pixel.png", false, "by link"));
  sent.document_id = await send(new Document(ids.document, true, undefined, "terms.pdf"));
  sent.audio_id = await send(new Audio(ids.audio, true));
  sent.video_id = await send(new Video(ids.video, true));
  sent.sticker_id = await send(new Sticker(ids.sticker, true));
  sent.document_link = await send(new Document("https://example.com/terms.pdf", false, undefined, "terms.pdf"));
  sent.audio_link = await send(new Audio("https://example.com/note.ogg"));
  sent.video_link = await send(new Video("https://example.com/clip.mp4", false, "clip"));
  sent.sticker_link = await send(new Sticker("https://example.com/smile.webp"));
  sent.location = await send(new Location(13.405, 52.52, "Office", "Berlin"));
  // whatsapp-api-js 6.3.0 sends `contacts` as a string holding the array's JSON; Meta documents an array,
  // and the simulator follows the documentation (docs/cloud-api.md §8.1), so this send is refused.
  const contacts = await api.sendMessage(
    phone,
    to,
    new Contacts([new Name("Ada Lovelace", "Ada"), new Phone("+15550009999", "WORK")]),
  );
  check(contacts.error?.code === 100, `contacts as a string: ${JSON.stringify(contacts)}`);
  sent.buttons = await send(
    new Interactive(new ActionButtons(new Button("yes", "Yes"), new Button("no", "No")), new Body("Pick one")),
  );
  sent.list = await send(
    new Interactive(
      new ActionList("Options", new ListSection("Sizes", new Row("s", "Small"))),
      new Body("Choose"),
    ),
  );
  sent.cta_url = await send(new Interactive(new ActionCTA("Open", "https://example.com"), new Body("Visit us")));
  sent.flow = await send(
    new Interactive(new ActionNavigateFlow("token", "1234567890", "Start", "WELCOME"), new Body("Sign up")),
  );
  sent.reaction = await send(new Reaction(inbound, "\u{1f44d}"));
  sent.template = await send(
    new Template(
      "order_shipped",
      new Language("en_US"),
      new HeaderComponent(new HeaderParameter("A-1")),
      new BodyComponent(new BodyParameter("Ada"), new BodyParameter("A-1"), new BodyParameter("Friday")),
      new URLComponent("A-1"),
    ),
  );

  // Read receipt, then read receipt with the typing indicator.
  check((await api.markAsRead(phone, inbound)).success === true, "mark as read");
  check((await api.markAsRead(phone, inbound, "text")).success === true, "typing indicator");

  // Block, then unblock, the customer (both unversioned paths).
  const blocked = await api.blockUser(phone, to);
  check(blocked.block_users?.added_users?.length === 1, `block: ${JSON.stringify(blocked)}`);
  const unblocked = await api.unblockUser(phone, to);
  check(unblocked.block_users?.removed_users?.length === 1, `unblock: ${JSON.stringify(unblocked)}`);

  process.stdout.write(`${JSON.stringify({ sent, uploaded: [uploaded.id, ...Object.values(ids)], contacts_refused: true })}\n`);
}

main().catch((error) => {
  console.error(`whatsapp-api-js contract failed: ${error?.stack ?? error}`);
  process.exit(1);
});
