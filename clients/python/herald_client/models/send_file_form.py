from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from .. import types
from ..types import UNSET, File, Unset

T = TypeVar("T", bound="SendFileForm")


@_attrs_define
class SendFileForm:
    """A multipart `send-file` form, for the reference (the server reads it as a stream).

    Attributes:
        file (File): The file: PDF, JPEG, PNG, MP4 or 3GPP video, AAC, AMR, MP3, MP4 audio, Ogg Opus, or WebP (a
            sticker),
            judged from its bytes; a document's part filename is the name the recipient sees.
        to (str): The recipient, E.164.
        caption (None | str | Unset): 1–1024 characters; not for audio or stickers.
        client_reference (None | str | Unset): Up to 128 characters, echoed in the resource and every event.
        from_ (None | str | Unset): The sender number (E.164), when the organization has several.
        reply_to (None | str | Unset): The message of the conversation this one replies to: a `msg_…` or `inb_…` id.
    """

    file: File
    to: str
    caption: None | str | Unset = UNSET
    client_reference: None | str | Unset = UNSET
    from_: None | str | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        file = self.file.to_tuple()

        to = self.to

        caption: None | str | Unset
        if isinstance(self.caption, Unset):
            caption = UNSET
        else:
            caption = self.caption

        client_reference: None | str | Unset
        if isinstance(self.client_reference, Unset):
            client_reference = UNSET
        else:
            client_reference = self.client_reference

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "file": file,
                "to": to,
            }
        )
        if caption is not UNSET:
            field_dict["caption"] = caption
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if from_ is not UNSET:
            field_dict["from"] = from_
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))

        files.append(("to", (None, str(self.to).encode(), "text/plain")))

        if not isinstance(self.caption, Unset):
            if isinstance(self.caption, str):
                files.append(("caption", (None, str(self.caption).encode(), "text/plain")))
            else:
                files.append(("caption", (None, str(self.caption).encode(), "text/plain")))

        if not isinstance(self.client_reference, Unset):
            if isinstance(self.client_reference, str):
                files.append(("client_reference", (None, str(self.client_reference).encode(), "text/plain")))
            else:
                files.append(("client_reference", (None, str(self.client_reference).encode(), "text/plain")))

        if not isinstance(self.from_, Unset):
            if isinstance(self.from_, str):
                files.append(("from", (None, str(self.from_).encode(), "text/plain")))
            else:
                files.append(("from", (None, str(self.from_).encode(), "text/plain")))

        if not isinstance(self.reply_to, Unset):
            if isinstance(self.reply_to, str):
                files.append(("reply_to", (None, str(self.reply_to).encode(), "text/plain")))
            else:
                files.append(("reply_to", (None, str(self.reply_to).encode(), "text/plain")))

        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        file = File(payload=BytesIO(d.pop("file")))

        to = d.pop("to")

        def _parse_caption(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        caption = _parse_caption(d.pop("caption", UNSET))

        def _parse_client_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_reference = _parse_client_reference(d.pop("client_reference", UNSET))

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        send_file_form = cls(
            file=file,
            to=to,
            caption=caption,
            client_reference=client_reference,
            from_=from_,
            reply_to=reply_to,
        )

        send_file_form.additional_properties = d
        return send_file_form

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
