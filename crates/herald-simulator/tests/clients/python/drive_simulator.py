"""Drives Herald's Cloud API simulator with pywa, a real Python Cloud API client, pinned in requirements.txt.

Run by the simulator's contract test (tests/simulator/clients.rs), which starts the simulator, lets a customer
write first (so the 24 h window is open) and passes where it listens in the environment:

  SIM_GRAPH_BASE  the simulator's Graph base URL (http://127.0.0.1:<port>/simulator)
  SIM_TOKEN       its access token
  SIM_PHONE_ID    the sending phone number id; SIM_WABA_ID its business account
  SIM_CUSTOMER    the customer's number; SIM_INBOUND_WAMID the message the customer sent

pywa always calls https://graph.facebook.com/v{version}; it sets that as the base URL of the httpx client it
is given, so the script points that client at the simulator after the WhatsApp object is made. Every call
goes through pywa's own methods. What the simulator received is checked by the Rust test; what it answered
is checked here, and a summary is printed as one JSON line on stdout.
"""

import hashlib
import json
import os
import sys

import httpx
from pywa import WhatsApp
from pywa.types import Button, Contact, FlowButton, Section, SectionList, SectionRow, URLButton
from pywa.types.templates import BodyText, HeaderText, TemplateLanguage, URLButton as TemplateURLButton

GRAPH_VERSION = 23.0
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PDF = b"%PDF-1.4\n% contract test\n"
# The simulator checks an upload's type and size, not its contents: a few bytes stand in for each file.
OGG = b"OggS" + b"\x00" * 60
MP4 = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 52
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 48


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def main():
    env = os.environ
    session = httpx.Client(timeout=10)
    wa = WhatsApp(
        phone_id=env["SIM_PHONE_ID"],
        token=env["SIM_TOKEN"],
        waba_id=env["SIM_WABA_ID"],
        api_version=GRAPH_VERSION,
        session=session,
    )
    session.base_url = f"{env['SIM_GRAPH_BASE']}/v{GRAPH_VERSION}"
    to = env["SIM_CUSTOMER"]
    inbound = env["SIM_INBOUND_WAMID"]
    sent = {}

    # Media upload, retrieval and download.
    image = wa.upload_media(media=PNG, mime_type="image/png", filename="pixel.png")
    document = wa.upload_media(media=PDF, mime_type="application/pdf", filename="terms.pdf")
    audio = wa.upload_media(media=OGG, mime_type="audio/ogg", filename="note.ogg")
    video = wa.upload_media(media=MP4, mime_type="video/mp4", filename="clip.mp4")
    sticker = wa.upload_media(media=WEBP, mime_type="image/webp", filename="smile.webp")
    url = wa.get_media_url(image.id)
    check(url.mime_type == "image/png", f"media url: {url}")
    check(url.sha256 == hashlib.sha256(PNG).hexdigest(), f"media sha256: {url}")
    downloaded = wa.get_media_bytes(url.url)
    check(downloaded == PNG, "the downloaded bytes are the uploaded ones")

    # Every kind Herald sends.
    sent["text"] = wa.send_message(to=to, text="Hello from pywa").id
    sent["image_id"] = wa.send_image(to=to, image=image.id, caption="by id").id
    sent["image_link"] = wa.send_image(to=to, image="https://example.com/pixel.png", caption="by link").id
    sent["document_id"] = wa.send_document(to=to, document=document.id, filename="terms.pdf").id
    sent["document_link"] = wa.send_document(
        to=to, document="https://example.com/terms.pdf", filename="terms.pdf"
    ).id
    sent["audio_id"] = wa.send_audio(to=to, audio=audio.id).id
    sent["video_id"] = wa.send_video(to=to, video=video.id).id
    sent["sticker_id"] = wa.send_sticker(to=to, sticker=sticker.id).id
    sent["audio_link"] = wa.send_audio(to=to, audio="https://example.com/note.ogg").id
    sent["video_link"] = wa.send_video(to=to, video="https://example.com/clip.mp4").id
    sent["sticker_link"] = wa.send_sticker(to=to, sticker="https://example.com/smile.webp").id
    sent["location"] = wa.send_location(
        to=to, latitude=52.52, longitude=13.405, name="Office", address="Berlin"
    ).id
    sent["contacts"] = wa.send_contact(
        to=to,
        contact=Contact(
            name=Contact.Name(formatted_name="Ada Lovelace", first_name="Ada"),
            phones=[Contact.Phone(phone="+15550009999", type="WORK")],
        ),
    ).id
    sent["buttons"] = wa.send_message(
        to=to,
        text="Pick one",
        buttons=[Button(title="Yes", callback_data="yes"), Button(title="No", callback_data="no")],
    ).id
    sent["list"] = wa.send_message(
        to=to,
        text="Choose",
        buttons=SectionList(
            button_title="Options",
            sections=[Section(title="Sizes", rows=[SectionRow(title="Small", callback_data="s")])],
        ),
    ).id
    sent["cta_url"] = wa.send_message(
        to=to, text="Visit us", buttons=URLButton(title="Open", url="https://example.com")
    ).id
    sent["flow"] = wa.send_message(
        to=to, text="Sign up", buttons=FlowButton(title="Start", flow_id="1234567890", flow_token="t")
    ).id
    sent["reaction"] = wa.send_reaction(to=to, emoji="\U0001f44d", message_id=inbound).id
    sent["template"] = wa.send_template(
        to=to,
        name="order_shipped",
        language=TemplateLanguage.ENGLISH_US,
        params=[
            HeaderText.params("A-1"),
            BodyText.params("Ada", "A-1", "Friday"),
            TemplateURLButton.params(url_variable="A-1", index=0),
        ],
    ).id

    # Read receipt, then read receipt with the typing indicator.
    check(wa.mark_message_as_read(message_id=inbound).success, "mark as read")
    check(wa.indicate_typing(message_id=inbound).success, "typing indicator")

    # Template listing with its summary.
    templates = wa.get_templates()
    names = sorted(t.name for t in templates)
    check("hello_world" in names, f"templates: {names}")
    check(templates.total_count >= len(names), f"total_count {templates.total_count}")
    check(templates.message_template_limit > 0, "message_template_limit")

    # Phone-number reads.
    number = wa.get_business_phone_number()
    numbers = wa.get_business_phone_numbers()
    check(number.id == env["SIM_PHONE_ID"], f"phone number: {number}")
    check(any(n.id == env["SIM_PHONE_ID"] for n in numbers), f"phone numbers: {numbers}")

    # Block, then unblock, the customer.
    blocked = wa.block_users(users=[to])
    check(len(blocked.added_users) == 1 and not blocked.failed_users, f"block: {blocked}")
    unblocked = wa.unblock_users(users=[to])
    check(len(unblocked.removed_users) == 1, f"unblock: {unblocked}")

    print(
        json.dumps(
            {
                "sent": sent,
                "uploaded": [image.id, document.id, audio.id, video.id, sticker.id],
                "templates": {
                    "names": names,
                    "total_count": templates.total_count,
                    "message_template_count": templates.message_template_count,
                    "message_template_limit": templates.message_template_limit,
                    "are_translations_complete": templates.are_translations_complete,
                },
                "phone_number": {
                    "id": number.id,
                    "display_phone_number": number.display_phone_number,
                    "verified_name": number.verified_name,
                    "quality_rating": str(number.quality_rating),
                },
                "phone_numbers": [n.id for n in numbers],
            }
        )
    )


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # the Rust test shows this text when the script fails
        print(f"pywa contract failed: {type(error).__name__}: {error}", file=sys.stderr)
        raise
